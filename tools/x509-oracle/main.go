// Command x509-oracle generates a corpus of client certificate chains (generate) and prints what
// Go's crypto/tls server with RequireAndVerifyClientCert would decide for each (oracle).
// Standard library only; built with Go 1.26 (go.mod: go 1.26.4, the line Fabric v2.5.16 and v3.1.5 use).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sort"
	"time"

	"fabric-ops/tools/x509-oracle/gotables"
)

// DefaultTime is the verification time of the fixed corpus.
const DefaultTime = "2025-06-01T00:00:00Z"

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	switch os.Args[1] {
	case "generate":
		fs := flag.NewFlagSet("generate", flag.ExitOnError)
		seed := fs.Int64("seed", 1, "seed of the case list")
		out := fs.String("out", "", "directory to write the corpus into (created)")
		at := fs.String("time", DefaultTime, "verification time, RFC 3339, or \"now\"; validity periods are relative to it")
		_ = fs.Parse(os.Args[2:])
		if *out == "" {
			fail("generate: -out is required")
		}
		now := time.Now().UTC().Truncate(time.Second)
		if *at != "now" {
			t, err := time.Parse(time.RFC3339, *at)
			if err != nil {
				fail("generate: -time: %v", err)
			}
			now = t
		}
		g := newGen(*seed, now)
		g.realtime = *at == "now"
		g.generateAll()
		if err := g.write(*out); err != nil {
			fail("generate: %v", err)
		}
		counts := map[string]int{}
		for _, c := range g.cases {
			counts[c.Class]++
		}
		classes := make([]string, 0, len(counts))
		for c := range counts {
			classes = append(classes, c)
		}
		sort.Strings(classes)
		summary := struct {
			Cases   int            `json:"cases"`
			Classes map[string]int `json:"classes"`
			Pools   int            `json:"pools"`
		}{len(g.cases), counts, len(g.pools)}
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(summary)
	case "oracle":
		fs := flag.NewFlagSet("oracle", flag.ExitOnError)
		corpus := fs.String("corpus", "", "corpus directory written by generate")
		_ = fs.Parse(os.Args[2:])
		if *corpus == "" {
			fail("oracle: -corpus is required")
		}
		if err := runOracle(*corpus, os.Stdout); err != nil {
			fail("oracle: %v", err)
		}
	case "gotables-overlay":
		// Go's own crypto/x509 tests, instrumented for gotables/_dump_test.go (see README).
		fs := flag.NewFlagSet("gotables-overlay", flag.ExitOnError)
		goroot := fs.String("goroot", "", "the Go installation whose crypto/x509 tests are read")
		dump := fs.String("dump", "", "path of gotables/_dump_test.go")
		out := fs.String("out", "", "directory to write verify_test.go and overlay.json into")
		_ = fs.Parse(os.Args[2:])
		if *goroot == "" || *dump == "" || *out == "" {
			fail("gotables-overlay: -goroot, -dump and -out are required")
		}
		routed, err := gotables.Instrument(*goroot, *dump, *out)
		if err != nil {
			fail("gotables-overlay: %v", err)
		}
		_ = json.NewEncoder(os.Stdout).Encode(routed)
	default:
		usage()
	}
}

func usage() {
	fail("usage: x509-oracle generate -out DIR [-seed N] [-time RFC3339|now]\n       x509-oracle oracle -corpus DIR\n       x509-oracle gotables-overlay -goroot DIR -dump FILE -out DIR")
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
	os.Exit(2)
}
