//go:debug rsa1024min=0

// Command x509-fuzz writes structure-aware DER mutations of Fabric-shaped client-certificate
// chains as a corpus in the x509-oracle's format (cases.jsonl + pools/), for the oracle and our
// verifier to decide. Every case is a pure function of (-seed, its index): the chain's seed, its
// operators and each operator's choices; keys are derived from a fixed seed and signatures are
// deterministic, so one index regenerates the same bytes anywhere. -keep replays one case with a
// subset of its operators (how the long-run bench shrinks a disagreement).
package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"
)

type fuzzer struct {
	seed    uint64
	keys    *keyRing
	seeds   []seedChain
	seedDER [][][]byte
	total   int
}

func newFuzzer(seed uint64, at time.Time) *fuzzer {
	f := &fuzzer{seed: seed, keys: newKeyRing()}
	f.seeds = seeds(f.keys, at)
	for _, s := range f.seeds {
		f.seedDER = append(f.seedDER, build(s.chain))
	}
	for _, o := range operators {
		f.total += o.weight
	}
	return f
}

func (f *fuzzer) pickOperator(r *rand.Rand) int {
	n := r.IntN(f.total)
	for i, o := range operators {
		if n < o.weight {
			return i
		}
		n -= o.weight
	}
	return 0
}

type fuzzCase struct {
	ID    string   `json:"id"`
	Class string   `json:"class"`
	Pool  string   `json:"pool"`
	Time  string   `json:"time"`
	Chain []string `json:"chain"`
	Index uint64   `json:"index"`
	Seed  string   `json:"seed"`
	Ops   []string `json:"ops"`
	pool  [][]byte
}

// makeCase builds case index; keep, when not nil, lists the positions of the operators to apply
// (the others are drawn, so that every kept operator makes the same choices, and skipped).
func (f *fuzzer) makeCase(index uint64, at time.Time, keep map[int]bool) fuzzCase {
	r := rand.New(rand.NewPCG(f.seed, index))
	si := r.IntN(len(f.seeds))
	s := &f.seeds[si]
	m := &caseModel{seed: s, at: at, f: f}
	for _, c := range s.chain {
		m.chain = append(m.chain, c.clone())
	}
	for i := 0; i < len(m.chain)-1; i++ {
		m.sent = append(m.sent, i)
	}
	m.pool = []int{len(m.chain) - 1}
	nops := []int{0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 3, 3, 3, 4}[r.IntN(20)]
	var labels []string
	for k := 0; k < nops; k++ {
		oi := f.pickOperator(r)
		opSeed := r.Uint64()
		if keep != nil && !keep[k] {
			continue
		}
		labels = append(labels, operators[oi].apply(m, rand.New(rand.NewPCG(opSeed, uint64(k)))))
	}
	ders := build(m.chain)
	fc := fuzzCase{Index: index, Seed: s.name, Ops: labels, Time: at.Format(time.RFC3339)}
	for _, i := range m.sent {
		fc.Chain = append(fc.Chain, base64.StdEncoding.EncodeToString(ders[i]))
	}
	for _, d := range m.extra {
		fc.Chain = append(fc.Chain, base64.StdEncoding.EncodeToString(d))
	}
	for _, i := range m.pool {
		fc.pool = append(fc.pool, ders[i])
	}
	fc.pool = append(fc.pool, m.foreignPool...)
	cls := s.name
	if len(labels) > 0 {
		cls += "/" + strings.Join(labels, "+")
	} else {
		cls += "/unmutated"
	}
	fc.Class = cls
	fc.ID = strconv.FormatUint(index, 10) + "-" + cls
	return fc
}

func main() {
	fs := flag.NewFlagSet("x509-fuzz", flag.ExitOnError)
	seed := fs.Uint64("seed", 1, "seed of the case list")
	start := fs.Uint64("start", 0, "index of the first case")
	count := fs.Int("count", 1000, "number of cases")
	out := fs.String("out", "", "directory to write the corpus into (created)")
	at := fs.String("time", "2025-06-01T00:00:00Z", "verification time, RFC 3339; validity periods are relative to it")
	keepList := fs.String("keep", "", "replay: the operator positions to keep, comma-separated (\"none\" for none), with -count 1")
	profile := fs.String("cpuprofile", "", "write a CPU profile (for tuning the generator)")
	_ = fs.Parse(os.Args[1:])
	if *profile != "" {
		pf, err := os.Create(*profile)
		if err != nil {
			fail("x509-fuzz: %v", err)
		}
		_ = pprof.StartCPUProfile(pf)
		defer pprof.StopCPUProfile()
	}
	if *out == "" {
		fail("x509-fuzz: -out is required")
	}
	now, err := time.Parse(time.RFC3339, *at)
	if err != nil {
		fail("x509-fuzz: -time: %v", err)
	}
	var keep map[int]bool
	if *keepList != "" {
		keep = map[int]bool{}
		if *keepList != "none" {
			for _, p := range strings.Split(*keepList, ",") {
				n, err := strconv.Atoi(p)
				if err != nil {
					fail("x509-fuzz: -keep: %v", err)
				}
				keep[n] = true
			}
		}
	}
	began := time.Now()
	f := newFuzzer(*seed, now)
	keysMs := time.Since(began).Milliseconds()
	if err := os.MkdirAll(filepath.Join(*out, "pools"), 0o755); err != nil {
		fail("x509-fuzz: %v", err)
	}
	file, err := os.Create(filepath.Join(*out, "cases.jsonl"))
	if err != nil {
		fail("x509-fuzz: %v", err)
	}
	w := bufio.NewWriterSize(file, 1<<20)
	enc := json.NewEncoder(w)
	pools := map[string]bool{}
	for n := 0; n < *count; n++ {
		fc := f.makeCase(*start+uint64(n), now, keep)
		var text strings.Builder
		for _, d := range fc.pool {
			_ = pem.Encode(&text, &pem.Block{Type: "CERTIFICATE", Bytes: d})
		}
		sum := sha256.Sum256([]byte(text.String()))
		fc.Pool = hex.EncodeToString(sum[:8])
		if !pools[fc.Pool] {
			pools[fc.Pool] = true
			dir := filepath.Join(*out, "pools", fc.Pool)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				fail("x509-fuzz: %v", err)
			}
			if err := os.WriteFile(filepath.Join(dir, "ca-0.pem"), []byte(text.String()), 0o644); err != nil {
				fail("x509-fuzz: %v", err)
			}
		}
		if err := enc.Encode(fc); err != nil {
			fail("x509-fuzz: %v", err)
		}
	}
	if err := w.Flush(); err != nil {
		fail("x509-fuzz: %v", err)
	}
	if err := file.Close(); err != nil {
		fail("x509-fuzz: %v", err)
	}
	summary := struct {
		Cases  int   `json:"cases"`
		Pools  int   `json:"pools"`
		Seeds  int   `json:"seeds"`
		KeysMs int64 `json:"keysMs"`
		Ms     int64 `json:"ms"`
	}{*count, len(pools), len(f.seeds), keysMs, time.Since(began).Milliseconds()}
	_ = json.NewEncoder(os.Stdout).Encode(summary)
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
	os.Exit(2)
}
