// This file is compiled into the installed Go's own crypto/x509 test package (go test -overlay,
// see ../test/go-tables.test.ts); the leading underscore keeps the Go tools from building it
// where it is stored. It walks the tables of crypto/x509's test files, builds every case with
// those files' own helpers, and writes each as a client-certificate case in the oracle's corpus
// format (../README.md): the leaf and the other certificates as the client would send them, the
// case's roots as the server's CA files, the case's time. It decides nothing itself: the oracle
// (crypto/tls's rules) and go-x509 both decide every case afterwards.

package x509

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

type fabricOpsCase struct {
	ID    string   `json:"id"`
	Class string   `json:"class"`
	Pool  string   `json:"pool"`
	Time  string   `json:"time"`
	Chain []string `json:"chain"`
}

type fabricOpsMeta struct {
	ID    string `json:"id"`
	Table string `json:"table"`
	Name  string `json:"name"`
	// Mapped: how the case's own question differs from the server's, which is decided instead.
	Mapped []string `json:"mapped,omitempty"`
	// TableError: the error the table expects for its own question ("" = success), when it says.
	TableError string `json:"tableError,omitempty"`
}

type fabricOpsSkip struct {
	Table  string `json:"table"`
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

type fabricOpsDump struct {
	dir   string
	cases []fabricOpsCase
	meta  []fabricOpsMeta
	skips []fabricOpsSkip
	read  map[string]int
	// recording: the test functions whose Verify questions are recorded; err: the first failure
	// to write one.
	recording map[string]bool
	err       error
}

func (d *fabricOpsDump) add(table, name string, at time.Time, leaf []byte, sent [][]byte, rootPEMs []string, mapped []string, tableError string) error {
	id := fmt.Sprintf("%04d-%s", len(d.cases), table)
	dir := filepath.Join(d.dir, "pools", id)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for i, p := range rootPEMs {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("ca-%03d.pem", i)), []byte(p), 0o644); err != nil {
			return err
		}
	}
	chain := []string{base64.StdEncoding.EncodeToString(leaf)}
	for _, der := range sent {
		chain = append(chain, base64.StdEncoding.EncodeToString(der))
	}
	d.cases = append(d.cases, fabricOpsCase{ID: id, Class: table, Pool: id, Time: at.UTC().Format(time.RFC3339), Chain: chain})
	d.meta = append(d.meta, fabricOpsMeta{ID: id, Table: table, Name: name, Mapped: mapped, TableError: tableError})
	return nil
}

func (d *fabricOpsDump) skip(table, name, reason string) {
	d.skips = append(d.skips, fabricOpsSkip{table, name, reason})
}

func fabricOpsPEMBlocks(text string) [][]byte {
	var out [][]byte
	rest := []byte(text)
	for {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			return out
		}
		if block.Type == "CERTIFICATE" && len(block.Headers) == 0 {
			out = append(out, block.Bytes)
		}
	}
}

func fabricOpsPEM(der []byte) string {
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}

// verifyTests (verify_test.go): PEM chains with their own time, roots and options.
func (d *fabricOpsDump) verifyTests() error {
	const table = "verifyTests"
	d.read[table] = len(verifyTests)
	for _, test := range verifyTests {
		leaf := fabricOpsPEMBlocks(test.leaf)
		if len(leaf) != 1 {
			d.skip(table, test.name, "the leaf is not one PEM certificate")
			continue
		}
		var sent [][]byte
		for _, in := range test.intermediates {
			sent = append(sent, fabricOpsPEMBlocks(in)...)
		}
		var mapped []string
		if test.dnsName != "" {
			mapped = append(mapped, "DNSName "+strconv.Quote(test.dnsName)+" not checked: a server does not check a client's name")
		}
		if len(test.keyUsages) > 0 {
			mapped = append(mapped, fmt.Sprintf("KeyUsages %v decided as [ClientAuth]", test.keyUsages))
		} else {
			mapped = append(mapped, "KeyUsages [] (ServerAuth) decided as [ClientAuth]")
		}
		if len(test.roots) == 0 {
			mapped = append(mapped, "system roots: the server trusts only its CA files, here none")
		}
		tableError := ""
		if test.errorCallback != nil {
			tableError = "(an error)"
		}
		if err := d.add(table, test.name, time.Unix(test.currentTime, 0), leaf[0], sent, test.roots, mapped, tableError); err != nil {
			return err
		}
	}
	return nil
}

// nameConstraintsTests (name_constraints_test.go): chains generated with that file's own helpers,
// as TestConstraintCases builds them (every certificate of a level shares its name and key).
func (d *fabricOpsDump) nameConstraintsTests() error {
	const table = "nameConstraintsTests"
	d.read[table] = len(nameConstraintsTests)
	keys := make([]*ecdsa.PrivateKey, 0, 8)
	keyAt := func(i int) *ecdsa.PrivateKey {
		for len(keys) <= i {
			k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
			if err != nil {
				panic(err)
			}
			keys = append(keys, k)
		}
		return keys[i]
	}
	for i, test := range nameConstraintsTests {
		rootKey := keyAt(0)
		rootName := "Root " + strconv.Itoa(i)
		var parent *Certificate
		parentKey := rootKey
		var roots []string
		failed := ""
		for _, root := range test.roots {
			c, err := makeConstraintsCACert(root, rootName, rootKey, nil, rootKey)
			if err != nil {
				failed = "its generator cannot make the root: " + err.Error()
				break
			}
			parent = c
			roots = append(roots, fabricOpsPEM(c.Raw))
		}
		var sent [][]byte
		for level, intermediates := range test.intermediates {
			if failed != "" {
				break
			}
			levelKey := keyAt(level + 1)
			levelName := "Intermediate level " + strconv.Itoa(level)
			var last *Certificate
			for _, in := range intermediates {
				c, err := makeConstraintsCACert(in, levelName, levelKey, parent, parentKey)
				if err != nil {
					failed = "its generator cannot make an intermediate: " + err.Error()
					break
				}
				last = c
				sent = append(sent, c.Raw)
			}
			parent, parentKey = last, levelKey
		}
		var leaf *Certificate
		if failed == "" {
			var err error
			leaf, err = makeConstraintsLeafCert(test.leaf, keyAt(len(test.intermediates)+1), parent, parentKey)
			if err != nil {
				failed = "its generator cannot make the leaf: " + err.Error()
			}
		}
		if failed != "" {
			d.skip(table, test.name, failed)
			continue
		}
		mapped := []string{fmt.Sprintf("KeyUsages %v decided as [ClientAuth]", test.requestedEKUs)}
		tableError := test.expectedError
		if tableError == "" {
			tableError = "(none)"
		}
		if err := d.add(table, test.name, time.Unix(1500, 0), leaf.Raw, sent, roots, mapped, tableError); err != nil {
			return err
		}
	}
	return nil
}

// fabricOpsRecording is the dump recording the questions Go's own tests ask, while it runs them.
var fabricOpsRecording *fabricOpsDump

// fabricOpsVerify stands for every one-argument Certificate.Verify call of the instrumented
// verify_test.go (gotables.Instrument): it records the question, then asks Go as before.
func fabricOpsVerify(fn string, c *Certificate, opts VerifyOptions) ([][]*Certificate, error) {
	if d := fabricOpsRecording; d != nil && d.recording[fn] {
		d.recordVerify(fn, c, opts)
	}
	return c.Verify(opts)
}

// fabricOpsPoliciesValid stands for TestPoliciesValid's policiesValid calls: the chain it is
// given (leaf first, the root last) is recorded as the client's list and a CA file.
func fabricOpsPoliciesValid(fn string, chain []*Certificate, opts VerifyOptions) bool {
	if d := fabricOpsRecording; d != nil && d.recording[fn] {
		d.recordPolicies(fn, chain, opts)
	}
	return policiesValid(chain, opts)
}

func (d *fabricOpsDump) fail(err error) {
	if d.err == nil {
		d.err = err
	}
}

// poolPEMs: the certificates of a pool in its order, or why the server cannot hold it.
func fabricOpsPoolPEMs(p *CertPool) ([]string, [][]byte, string) {
	if p == nil {
		return nil, nil, ""
	}
	if p.systemPool {
		return nil, nil, "system roots: a server trusts only its CA files"
	}
	var pems []string
	var ders [][]byte
	for i := range p.len() {
		c, constraint, err := p.cert(i)
		if err != nil {
			return nil, nil, "a pool certificate does not load: " + err.Error()
		}
		if constraint != nil {
			return nil, nil, "a pool certificate with a constraint function (AddCertWithConstraint), which no CA file can carry"
		}
		pems = append(pems, fabricOpsPEM(c.Raw))
		ders = append(ders, c.Raw)
	}
	return pems, ders, ""
}

func (d *fabricOpsDump) recordVerify(fn string, c *Certificate, opts VerifyOptions) {
	d.read[fn]++
	name := fmt.Sprintf("%s #%d", fn, d.read[fn])
	if opts.Roots == nil {
		d.skip(fn, name, "system roots (Roots nil): a server trusts only its CA files")
		return
	}
	roots, _, why := fabricOpsPoolPEMs(opts.Roots)
	if why == "" {
		var sent [][]byte
		_, sent, why = fabricOpsPoolPEMs(opts.Intermediates)
		if why == "" {
			at := opts.CurrentTime
			if at.IsZero() {
				at = time.Now()
			}
			mapped := []string{fmt.Sprintf("KeyUsages %v decided as [ClientAuth]", opts.KeyUsages)}
			if opts.DNSName != "" {
				mapped = append(mapped, "DNSName "+strconv.Quote(opts.DNSName)+" not checked: a server does not check a client's name")
			}
			if len(opts.CertificatePolicies) > 0 {
				mapped = append(mapped, "CertificatePolicies dropped: a server passes no initial policy set")
			}
			if err := d.add(fn, name, at, c.Raw, sent, roots, mapped, ""); err != nil {
				d.fail(err)
			}
			return
		}
	}
	d.skip(fn, name, why)
}

func (d *fabricOpsDump) recordPolicies(fn string, chain []*Certificate, opts VerifyOptions) {
	d.read[fn]++
	name := fmt.Sprintf("%s #%d", fn, d.read[fn])
	if len(chain) < 2 {
		d.skip(fn, name, "a chain without a separate root")
		return
	}
	// The chain's own validity periods give the time: the latest notBefore, if no certificate has
	// ended by then.
	at := chain[0].NotBefore
	for _, c := range chain {
		if c.NotBefore.After(at) {
			at = c.NotBefore
		}
	}
	for _, c := range chain {
		if c.NotAfter.Before(at) {
			d.skip(fn, name, "the chain's validity periods do not overlap")
			return
		}
	}
	var sent [][]byte
	for _, c := range chain[1 : len(chain)-1] {
		sent = append(sent, c.Raw)
	}
	mapped := []string{"policiesValid alone decided as a whole Verify with [ClientAuth], the last certificate as the CA file"}
	if len(opts.CertificatePolicies) > 0 || opts.requireExplicitPolicy || opts.inhibitPolicyMapping || opts.inhibitAnyPolicy {
		mapped = append(mapped, "the initial policy set and flags dropped: a server passes none")
	}
	if err := d.add(fn, name, at, chain[0].Raw, sent, []string{fabricOpsPEM(chain[len(chain)-1].Raw)}, mapped, ""); err != nil {
		d.fail(err)
	}
}

// fabricOpsRecorded: the tests of verify_test.go whose questions are recorded while they run,
// each a table or a fixed list of chains.
var fabricOpsRecorded = []struct {
	name string
	test func(*testing.T)
}{
	{"TestPathBuilding", TestPathBuilding},
	{"TestEKUEnforcement", TestEKUEnforcement},
	{"TestPoliciesValid", TestPoliciesValid},
	{"TestPathologicalChains", TestPathologicalChains},
	{"TestVerifyEKURootAsLeaf", TestVerifyEKURootAsLeaf},
	{"TestInvalidPolicyWithAnyKeyUsage", TestInvalidPolicyWithAnyKeyUsage},
	{"TestCertificateChainSignedByECDSA", TestCertificateChainSignedByECDSA},
}

func TestFabricOpsDumpGoTables(t *testing.T) {
	out := os.Getenv("FABRIC_OPS_GOTABLES_OUT")
	if out == "" {
		t.Skip("FABRIC_OPS_GOTABLES_OUT is not set")
	}
	d := &fabricOpsDump{dir: out, read: map[string]int{}, recording: map[string]bool{}}
	for _, walk := range []func() error{d.verifyTests, d.nameConstraintsTests} {
		if err := walk(); err != nil {
			t.Fatal(err)
		}
	}
	// Go's own tests, run as Go wrote them (their own checks included), with their questions
	// recorded. The group waits for any parallel subtest before the recording ends.
	fabricOpsRecording = d
	t.Run("recorded", func(t *testing.T) {
		for _, r := range fabricOpsRecorded {
			d.recording[r.name] = true
			d.read[r.name] += 0
			t.Run(r.name, r.test)
		}
	})
	fabricOpsRecording = nil
	if d.err != nil {
		t.Fatal(d.err)
	}
	f, err := os.Create(filepath.Join(out, "cases.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	enc := json.NewEncoder(f)
	for _, c := range d.cases {
		if err := enc.Encode(c); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	summary, err := json.Marshal(struct {
		Read  map[string]int  `json:"read"`
		Cases []fabricOpsMeta `json:"cases"`
		Skips []fabricOpsSkip `json:"skips"`
	}{d.read, d.meta, d.skips})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "tables.json"), summary, 0o644); err != nil {
		t.Fatal(err)
	}
}
