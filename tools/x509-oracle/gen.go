package main

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"fabric-ops/tools/x509-oracle/internal/der"
)

type caseOut struct {
	ID    string   `json:"id"`
	Class string   `json:"class"`
	Pool  string   `json:"pool"`
	Time  string   `json:"time"`
	Chain []string `json:"chain"`
	Key   string   `json:"key,omitempty"`
}

type gen struct {
	rnd    *rand.Rand
	now    time.Time
	serial int64
	keys   map[string][]*key
	next   map[string]int
	pools  map[string][][]string // pool id -> files -> PEM blocks
	cases  []caseOut
	label  string // the case being built: names carry it so no two cases share a CA name by accident
	recent []*cert
	// realtime: the corpus is checked against a real clock later (-time now), so classes whose
	// verdict turns on the exact second are left out.
	realtime bool

	decoyKeys   []*key
	serialDecoy int
}

func newGen(seed int64, now time.Time) *gen {
	g := &gen{rnd: rand.New(rand.NewSource(seed)), now: now, keys: map[string][]*key{}, next: map[string]int{}, pools: map[string][][]string{}}
	// Key generation dominates the run time; a small set of keys per kind is shared by all cases.
	// Names are unique per case, so a shared key never makes two cases' chains interchangeable.
	counts := map[string]int{kRSA: 4, kP256: 10, kP384: 3, kP521: 3, kEd: 6, kDSA: 1, kRSAPSS: 1}
	kinds := make([]string, 0, len(counts))
	for k := range counts {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		for i := 0; i < counts[k]; i++ {
			g.keys[k] = append(g.keys[k], newKey(k))
		}
	}
	// Decoys need keys no real CA of any case holds, or a decoy would be a genuine issuer.
	for i := 0; i < 4; i++ {
		g.decoyKeys = append(g.decoyKeys, newKey(kP256))
	}
	return g
}

func (g *gen) decoyKey() *key {
	g.serialDecoy++
	return g.decoyKeys[g.serialDecoy%len(g.decoyKeys)]
}

func (g *gen) key(kind string) *key {
	ks := g.keys[kind]
	i := g.next[kind]
	g.next[kind] = i + 1
	return ks[i%len(ks)]
}

var tlsKinds = []string{kRSA, kP256, kP384, kP521, kEd}
var caKinds = []string{kP256, kP256, kP384, kRSA, kEd, kP521}

func (g *gen) pick(list []string) string { return list[g.rnd.Intn(len(list))] }

const day = 24 * time.Hour

// ---- trust pools ---------------------------------------------------------------------------

type roots struct {
	rsa, p256, p384, p521, ed                     *cert
	anchor, anchorRSA, offRoot                    *cert
	mixed, unparseable                            *cert
	ncDNS, ncDNSEx, ncIP, ncEmail, ncURI, ncDir   *cert
	v1, noBC, norm, expired, nyv, sha1, ekuServer *cert
	path0, path1, rotation                        *cert
	selfSignedClient                              *cert
}

func (g *gen) root(org, cn, kind string, mod func(*spec)) *cert {
	s := spec{subject: stdName(org, cn), pub: g.key(kind), ca: true, noAKID: true}
	if mod != nil {
		mod(&s)
	}
	return g.issue(nil, s)
}

func (g *gen) makePools() *roots {
	r := &roots{}
	r.rsa = g.root("Pool RSA", "RSA Root", kRSA, nil)
	g.pools["p1-rsa"] = [][]string{{r.rsa.pem()}}

	r.p256 = g.root("Pool EC", "P-256 Root", kP256, nil)
	r.p384 = g.root("Pool EC", "P-384 Root", kP384, nil)
	r.p521 = g.root("Pool EC", "P-521 Root", kP521, nil)
	r.ed = g.root("Pool EC", "Ed25519 Root", kEd, nil)
	g.pools["p2-ec"] = [][]string{{r.p256.pem()}, {r.p384.pem()}, {r.p521.pem(), r.ed.pem()}}

	// Intermediate anchors: CA certificates that are not self-signed, trusted as they are.
	r.offRoot = g.root("Untrusted", "Off-Pool Root", kP256, nil)
	r.anchor = g.issue(r.offRoot, spec{subject: stdName("Pool Anchor", "Anchor CA"), pub: g.key(kP256), ca: true})
	r.anchorRSA = g.issue(r.offRoot, spec{subject: stdName("Pool Anchor", "Anchor CA RSA"), pub: g.key(kRSA), ca: true})
	g.pools["p3-anchor"] = [][]string{{r.anchor.pem()}, {r.anchorRSA.pem()}}

	// A CA file holding a certificate Go cannot parse next to a good root, and a file holding only
	// a CA Go cannot parse (underscore in a PrintableString): Go drops both unparseable ones.
	r.mixed = g.root("Pool Mixed", "Mixed Root", kP256, nil)
	junk := g.root("Pool Mixed", "Junk", kP256, func(s *spec) {
		s.subject = rdnName(atv{der.OIDO, tagPrintable, []byte("Pool Mixed")}, atv{der.OIDCN, tagUTF8, []byte{'J', 0xc3, 0x28}})
	})
	r.unparseable = g.root("Pool Mixed", "Unparseable Root", kP256, func(s *spec) {
		s.subject = rdnName(atv{der.OIDO, tagPrintable, []byte("pool_mixed")}, atv{der.OIDCN, tagUTF8, []byte("Unparseable Root")})
	})
	g.pools["p4-mixed"] = [][]string{{junk.pem(), r.mixed.pem()}, {r.unparseable.pem()}}

	nc := func(cn string, value []byte) *cert {
		return g.root("Pool Constrained", cn, kP256, func(s *spec) { s.extra = []ext{{der.OIDNC, true, value}} })
	}
	sub := func(gn []byte) []byte { return der.Seq(gn) }
	r.ncDNS = nc("NC DNS permitted", der.Seq(der.Explicit(0, sub(der.TLV(0x82, []byte("example.com"))))))
	r.ncDNSEx = nc("NC DNS excluded", der.Seq(der.Explicit(1, sub(der.TLV(0x82, []byte("bad.example.com"))))))
	r.ncIP = nc("NC IP permitted", der.Seq(der.Explicit(0, sub(der.TLV(0x87, []byte{10, 0, 0, 0, 255, 0, 0, 0})))))
	r.ncEmail = nc("NC email permitted", der.Seq(der.Explicit(0, sub(der.TLV(0x81, []byte("example.com"))))))
	r.ncURI = nc("NC URI permitted", der.Seq(der.Explicit(0, sub(der.TLV(0x86, []byte(".example.com"))))))
	r.ncDir = nc("NC dirName permitted", der.Seq(der.Explicit(0, sub(der.Explicit(4, rdnName(atv{der.OIDO, tagPrintable, []byte("Org1")}))))))
	g.pools["p5-constrained"] = [][]string{{r.ncDNS.pem()}, {r.ncDNSEx.pem()}, {r.ncIP.pem()}, {r.ncEmail.pem()}, {r.ncURI.pem()}, {r.ncDir.pem()}}

	r.v1 = g.root("Pool Odd", "V1 Root", kP256, func(s *spec) { s.version = 1; s.noExtensions = true })
	r.noBC = g.root("Pool Odd", "V3 Root without basicConstraints", kP256, func(s *spec) { s.noBC = true })
	r.norm = g.root("Pool Odd", "Norm Root", kP256, func(s *spec) {
		s.subject = rdnName(atv{der.OIDC, tagPrintable, []byte("US")}, atv{der.OIDO, tagPrintable, []byte("Norm Org")}, atv{der.OIDCN, tagPrintable, []byte("Norm Root")})
	})
	r.expired = g.root("Pool Odd", "Expired Root", kP256, func(s *spec) {
		s.notBefore, s.notAfter = g.now.Add(-3*365*day), g.now.Add(-2*day)
	})
	r.nyv = g.root("Pool Odd", "Not Yet Valid Root", kP256, func(s *spec) {
		s.notBefore, s.notAfter = g.now.Add(2*day), g.now.Add(3*365*day)
	})
	r.sha1 = g.root("Pool Odd", "SHA-1 Self-Signed Root", kRSA, func(s *spec) { s.sigAlg = sigSHA1RSA })
	r.ekuServer = g.root("Pool Odd", "ServerAuth-only Root", kP256, func(s *spec) { s.ekuSet = true; s.eku = append(s.eku, ekuServer) })
	// A self-signed client certificate (not a CA) listed as a client CA: Go admits it as its own chain.
	r.selfSignedClient = g.issue(nil, spec{subject: stdName("Pool Odd", "Self-Signed Client"), pub: g.key(kP256), noAKID: true})
	g.pools["p6-odd"] = [][]string{{r.v1.pem()}, {r.noBC.pem()}, {r.norm.pem()}, {r.expired.pem(), r.nyv.pem()}, {r.sha1.pem()}, {r.ekuServer.pem()}, {r.selfSignedClient.pem()}}

	r.path0 = g.root("Pool Path", "PathLen 0 Root", kP256, func(s *spec) { s.hasPathLen = true })
	r.path1 = g.root("Pool Path", "PathLen 1 Root", kP256, func(s *spec) { s.hasPathLen = true; s.pathLen = 1 })
	r.rotation = g.root("Pool Path", "Rotation Root", kP256, nil)
	g.pools["p7-path"] = [][]string{{r.path0.pem(), r.path1.pem()}, {r.rotation.pem()}}
	return r
}

func (r *roots) poolOf(c *cert) string {
	switch c {
	case r.rsa:
		return "p1-rsa"
	case r.p256, r.p384, r.p521, r.ed:
		return "p2-ec"
	case r.anchor, r.anchorRSA:
		return "p3-anchor"
	case r.mixed, r.unparseable:
		return "p4-mixed"
	case r.ncDNS, r.ncDNSEx, r.ncIP, r.ncEmail, r.ncURI, r.ncDir:
		return "p5-constrained"
	case r.v1, r.noBC, r.norm, r.expired, r.nyv, r.sha1, r.ekuServer, r.selfSignedClient:
		return "p6-odd"
	case r.path0, r.path1, r.rotation:
		return "p7-path"
	case r.offRoot:
		return "p1-rsa" // the off-pool root is trusted nowhere; p1 is as good as any
	}
	panic("root in no pool")
}

// ---- chains --------------------------------------------------------------------------------

// inter issues an intermediate CA under parent.
func (g *gen) inter(parent *cert, n int, kind string, mod func(*spec)) *cert {
	s := spec{subject: stdName("Case "+g.label, fmt.Sprintf("Intermediate %d", n)), pub: g.key(kind), ca: true}
	if mod != nil {
		mod(&s)
	}
	return g.issue(parent, s)
}

func (g *gen) leaf(parent *cert, kind string, mod func(*spec)) *cert {
	s := spec{subject: stdName("Case "+g.label, "client"), pub: g.key(kind)}
	if mod != nil {
		mod(&s)
	}
	return g.issue(parent, s)
}

// client issues a leaf under parent with the next key of a kind a TLS client can hold, and
// returns it with that key.
func (g *gen) client(parent *cert) (*cert, *key) {
	lk := g.key(g.pick(tlsKinds))
	return g.leaf(parent, lk.kind, func(s *spec) { s.pub = lk }), lk
}

// issuerOf is the certificate that issues the leaf of a chain root -> in (bottom-up): in's first,
// or root itself when there are no intermediates.
func issuerOf(root *cert, in []*cert) *cert {
	if len(in) > 0 {
		return in[0]
	}
	return root
}

// path builds n intermediates under root and returns them bottom-up (the first issues the leaf).
func (g *gen) path(root *cert, n int, mod func(i int, s *spec)) []*cert {
	var top []*cert
	parent := root
	for i := 0; i < n; i++ {
		idx := i
		c := g.inter(parent, i+1, g.pick(caKinds), func(s *spec) {
			if mod != nil {
				mod(idx, s)
			}
		})
		top = append(top, c)
		parent = c
	}
	out := make([]*cert, n)
	for i := range top {
		out[n-1-i] = top[i]
	}
	return out
}

func (g *gen) add(class, pool string, leafKey *key, chain ...*cert) {
	c := caseOut{ID: fmt.Sprintf("%04d-%s", len(g.cases), class), Class: class, Pool: pool, Time: g.now.UTC().Format(time.RFC3339)}
	for _, x := range chain {
		c.Chain = append(c.Chain, base64.StdEncoding.EncodeToString(x.der))
	}
	if leafKey != nil && leafKey.tlsCapable() {
		c.Key = leafKey.pkcs8PEM()
	}
	g.cases = append(g.cases, c)
	g.recent = append(g.recent, chain...)
	if len(g.recent) > 64 {
		g.recent = g.recent[len(g.recent)-64:]
	}
}

func (g *gen) begin(class string) { g.label = fmt.Sprintf("%d %s", len(g.cases), class) }

func cat(first *cert, rest ...[]*cert) []*cert {
	out := []*cert{first}
	for _, r := range rest {
		out = append(out, r...)
	}
	return out
}

func (g *gen) write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for id, files := range g.pools {
		pd := filepath.Join(dir, "pools", id)
		if err := os.MkdirAll(pd, 0o755); err != nil {
			return err
		}
		for i, blocks := range files {
			if err := os.WriteFile(filepath.Join(pd, fmt.Sprintf("ca-%d.pem", i)), []byte(strings.Join(blocks, "")), 0o644); err != nil {
				return err
			}
		}
	}
	f, err := os.Create(filepath.Join(dir, "cases.jsonl"))
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	for _, c := range g.cases {
		if err := enc.Encode(c); err != nil {
			return err
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}
