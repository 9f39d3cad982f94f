// Package gotables prepares the installed Go's crypto/x509 tests for the dump in _dump_test.go:
// an instrumented copy of verify_test.go, written outside the Go tree, and the -overlay file that
// puts it and the dump in place for one `go test` run. Nothing of Go's is kept in the repository.
package gotables

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// Instrument writes outDir/verify_test.go, Go's own with every one-argument X.Verify(opts) call
// routed through fabricOpsVerify(<enclosing function>, X, opts) and every policiesValid call
// through fabricOpsPoliciesValid(<enclosing function>, ...), both of which record the question
// and then ask Go exactly as before; and outDir/overlay.json. It returns how many calls it
// routed, by enclosing function.
func Instrument(goroot, dump, outDir string) (map[string]int, error) {
	x509Dir := filepath.Join(goroot, "src", "crypto", "x509")
	source := filepath.Join(x509Dir, "verify_test.go")
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, source, nil, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	imported := map[string]bool{}
	for _, spec := range file.Imports {
		p, _ := strconv.Unquote(spec.Path.Value)
		name := path.Base(p)
		if spec.Name != nil {
			name = spec.Name.Name
		}
		imported[name] = true
	}
	routed := map[string]int{}
	for _, decl := range file.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		enclosing := &ast.BasicLit{Kind: token.STRING, Value: strconv.Quote(fn.Name.Name)}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			switch f := call.Fun.(type) {
			case *ast.SelectorExpr:
				if x, isIdent := f.X.(*ast.Ident); isIdent && imported[x.Name] {
					return true
				}
				if f.Sel.Name == "Verify" && len(call.Args) == 1 {
					call.Args = []ast.Expr{enclosing, f.X, call.Args[0]}
					call.Fun = ast.NewIdent("fabricOpsVerify")
					routed[fn.Name.Name]++
				}
			case *ast.Ident:
				if f.Name == "policiesValid" {
					call.Args = append([]ast.Expr{enclosing}, call.Args...)
					call.Fun = ast.NewIdent("fabricOpsPoliciesValid")
					routed[fn.Name.Name]++
				}
			}
			return true
		})
	}
	var out bytes.Buffer
	if err := format.Node(&out, fset, file); err != nil {
		return nil, err
	}
	instrumented := filepath.Join(outDir, "verify_test.go")
	if err := os.WriteFile(instrumented, out.Bytes(), 0o644); err != nil {
		return nil, err
	}
	overlay, err := json.Marshal(map[string]map[string]string{"Replace": {
		source: instrumented,
		filepath.Join(x509Dir, "zz_fabricops_gotables_test.go"): dump,
	}})
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(outDir, "overlay.json"), overlay, 0o644); err != nil {
		return nil, err
	}
	if len(routed) == 0 || !strings.Contains(out.String(), "fabricOpsVerify(") {
		return routed, fmt.Errorf("gotables: no Verify call found to route in %s", source)
	}
	return routed, nil
}
