package main

// The mutation operators. Each edits the model of one case (names, constraints, extensions,
// keys, algorithms, versions, times, string types, encodings, the list sent, the pool) and
// returns a label "<operator>.<variant>@<role>" that names what it did; the labels of a case's
// operators are its class.

import (
	"encoding/asn1"
	"math/big"
	"math/rand/v2"
	"time"

	"fabric-ops/tools/x509-oracle/internal/der"
)

type caseModel struct {
	seed  *seedChain
	chain []*cert
	sent  []int    // chain indices sent, in order (the root is last in chain and not sent by default)
	extra [][]byte // unrelated certificates also sent, after the chain's
	pool  []int    // chain indices whose certificates are in the CA file (default: the root)
	// foreignPool: certificates of other seeds in the CA file too (their roots).
	foreignPool [][]byte
	at          time.Time
	f           *fuzzer
}

type operator struct {
	name   string
	weight int
	apply  func(m *caseModel, r *rand.Rand) string
}

func roleOf(m *caseModel, i int) string {
	switch {
	case i == 0:
		return "leaf"
	case i == len(m.chain)-1:
		return "root"
	}
	return "intermediate"
}

// target picks a certificate: the leaf with probability leafP, otherwise a CA.
func target(m *caseModel, r *rand.Rand, leafP float64) int {
	if r.Float64() < leafP {
		return 0
	}
	return 1 + r.IntN(len(m.chain)-1)
}

func anyTarget(m *caseModel, r *rand.Rand) int { return r.IntN(len(m.chain)) }

func sanOf(c *cert) *ext {
	e := c.ext(der.OIDSAN)
	if e == nil || e.value != nil {
		e = &ext{oid: der.OIDSAN}
		c.setExt(e)
	}
	return e
}

func ncOf(c *cert) *ext {
	e := c.ext(der.OIDNC)
	if e == nil || e.nc == nil {
		e = &ext{oid: der.OIDNC, critical: true, nc: &ncModel{}}
		c.setExt(e)
	}
	return e
}

func opSAN(kind string) func(m *caseModel, r *rand.Rand) string {
	return func(m *caseModel, r *rand.Rand) string {
		i := target(m, r, 0.85)
		var g gname
		var label string
		switch kind {
		case "dns":
			p := choose(r, dnsValues(m.seed.domain, m.seed.host))
			g, label = dnsName(p.val), p.label
		case "email":
			p := choose(r, emailValues(m.seed.domain, m.seed.host))
			g, label = emailName(p.val), p.label
		case "uri":
			p := choose(r, uriValues(m.seed.domain, m.seed.host))
			g, label = uriName(p.val), p.label
		case "ip":
			vs := ipValues(m.seed.ip)
			p := vs[r.IntN(len(vs))]
			g, label = ipName(p.val), p.label
		}
		e := sanOf(m.chain[i])
		mode := []string{"add", "only", "first"}[r.IntN(3)]
		switch mode {
		case "add":
			e.san = append(e.san, g)
		case "only":
			e.san = []gname{g}
		case "first":
			e.san = append([]gname{g}, e.san...)
		}
		return "san-" + kind + "." + mode + "." + label + "@" + roleOf(m, i)
	}
}

func opSANShape(m *caseModel, r *rand.Rand) string {
	i := target(m, r, 0.8)
	c := m.chain[i]
	variant := []string{"remove", "empty-seq", "critical", "othername", "dirname", "registered-id", "x400", "unknown-tag", "duplicate", "empty-subject", "empty-subject-critical", "edi-party", "constructed-dns"}[r.IntN(13)]
	switch variant {
	case "remove":
		c.dropExt(der.OIDSAN)
	case "empty-seq":
		sanOf(c).san = nil
	case "critical":
		sanOf(c).critical = true
	case "othername":
		e := sanOf(c)
		e.san = append(e.san, gname{0xa0, concat(der.OID(asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 311, 20, 2, 3}), der.Explicit(0, der.TLV(0x0c, []byte("upn@"+m.seed.domain))))})
	case "dirname":
		e := sanOf(c)
		e.san = append(e.san, gname{0xa4, der.Seq(der.Set(der.Seq(der.OID(der.OIDCN), der.TLV(0x13, []byte("dir")))))})
	case "registered-id":
		e := sanOf(c)
		e.san = append(e.san, gname{0x88, der.OID(asn1.ObjectIdentifier{1, 2, 3, 4})[2:]})
	case "x400":
		e := sanOf(c)
		e.san = append(e.san, gname{0xa3, der.Seq()})
	case "unknown-tag":
		e := sanOf(c)
		e.san = append(e.san, gname{0x89, []byte("x")})
	case "duplicate":
		e := sanOf(c)
		d := *e
		c.exts = append(c.exts, &d)
	case "empty-subject", "empty-subject-critical":
		c.subjectRaw = der.Seq()
		e := sanOf(c)
		if len(e.san) == 0 {
			e.san = []gname{dnsName(m.seed.host)}
		}
		e.critical = variant == "empty-subject-critical"
	case "edi-party":
		e := sanOf(c)
		e.san = append(e.san, gname{0xa5, der.Explicit(1, der.TLV(0x0c, []byte("x")))})
	case "constructed-dns":
		e := sanOf(c)
		e.san = append(e.san, gname{0xa2, der.TLV(0x16, []byte(m.seed.host))})
	}
	return "san-shape." + variant + "@" + roleOf(m, i)
}

func opNC(m *caseModel, r *rand.Rand) string {
	i := 1 + r.IntN(len(m.chain)-1)
	if r.IntN(8) == 0 {
		i = 0 // a leaf with name constraints
	}
	c := m.chain[i]
	e := ncOf(c)
	form := []string{"dns", "dns", "email", "uri", "ip", "dirname", "other"}[r.IntN(7)]
	var g gname
	var label string
	d := m.seed.domain
	switch form {
	case "dns":
		p := choose(r, dnsConstraintValues(d))
		g, label = dnsName(p.val), p.label
	case "email":
		p := choose(r, emailConstraintValues(d))
		g, label = emailName(p.val), p.label
	case "uri":
		p := choose(r, uriConstraintValues(d))
		g, label = uriName(p.val), p.label
	case "ip":
		vs := ipConstraintValues()
		p := vs[r.IntN(len(vs))]
		g, label = ipName(p.val), p.label
	case "dirname":
		subj := m.chain[0].subjectDER()
		if r.IntN(2) == 0 {
			subj = der.Seq(der.Set(der.Seq(der.OID(der.OIDO), der.TLV(0x13, []byte("Other")))))
			label = "other"
		} else {
			label = "leaf-subject"
		}
		g = gname{0xa4, subj}
	case "other":
		variants := []gname{{0x88, []byte{0x2a, 0x03}}, {0xa0, concat(der.OID(asn1.ObjectIdentifier{1, 2, 3}), der.Explicit(0, der.TLV(0x0c, []byte("x"))))}, {0xa3, der.Seq()}, {0x89, []byte("x")}}
		k := r.IntN(len(variants))
		g, label = variants[k], "tag"+itoa(int(variants[k].tag))
	}
	st := subtree{base: g}
	extra := ""
	switch r.IntN(10) {
	case 0:
		st.min, extra = der.TLV(0x80, []byte{0}), ".min0"
	case 1:
		st.min, extra = der.TLV(0x80, []byte{1}), ".min1"
	case 2:
		st.max, extra = der.TLV(0x81, []byte{2}), ".max"
	}
	mode := []string{"permit", "permit", "exclude", "exclude", "only-permit", "only-exclude", "empty", "permitted-empty", "noncritical", "remove"}[r.IntN(10)]
	switch mode {
	case "permit":
		e.nc.permitted = append(e.nc.permitted, st)
	case "exclude":
		e.nc.excluded = append(e.nc.excluded, st)
	case "only-permit":
		e.nc.permitted, e.nc.excluded = []subtree{st}, nil
	case "only-exclude":
		e.nc.permitted, e.nc.excluded = nil, []subtree{st}
	case "empty":
		e.nc.permitted, e.nc.excluded = nil, nil
		return "nc.empty@" + roleOf(m, i)
	case "permitted-empty":
		e.nc.permitted, e.nc.permittedSet = nil, true
		e.nc.excluded = append(e.nc.excluded, st)
	case "noncritical":
		e.critical = false
		e.nc.permitted = append(e.nc.permitted, st)
	case "remove":
		c.dropExt(der.OIDNC)
		return "nc.remove@" + roleOf(m, i)
	}
	return "nc." + mode + "." + form + "." + label + extra + "@" + roleOf(m, i)
}

func opKU(m *caseModel, r *rand.Rand) string {
	i := anyTarget(m, r)
	c := m.chain[i]
	variant := []string{"remove", "no-bits", "random", "random", "toggle-critical", "trailing-zero-byte", "wrong-unused", "no-certsign", "only-certsign", "nine-bits"}[r.IntN(10)]
	e := c.ext(der.OIDKU)
	if e == nil {
		e = kuExt(true, 0)
		c.setExt(e)
	}
	switch variant {
	case "remove":
		c.dropExt(der.OIDKU)
	case "no-bits":
		e.value = der.BitString()
	case "random":
		var b []int
		for bit := 0; bit < 9; bit++ {
			if r.IntN(3) == 0 {
				b = append(b, bit)
			}
		}
		e.value = der.BitString(b...)
		variant += "." + itoa(len(b))
	case "toggle-critical":
		e.critical = !e.critical
	case "trailing-zero-byte":
		e.value = []byte{0x03, 0x03, 0x07, 0x86, 0x00}
	case "wrong-unused":
		e.value = []byte{0x03, 0x02, 0x00, 0x86}
	case "no-certsign":
		e.value = der.BitString(0, 2)
	case "only-certsign":
		e.value = der.BitString(5)
	case "nine-bits":
		e.value = der.BitString(0, 5, 8)
	}
	return "ku." + variant + "@" + roleOf(m, i)
}

var ekuChoices = []struct {
	label string
	oid   asn1.ObjectIdentifier
}{
	{"client", ekuClient}, {"server", ekuServer}, {"any", ekuAny}, {"code", asn1.ObjectIdentifier{1, 3, 6, 1, 5, 5, 7, 3, 3}},
	{"email", asn1.ObjectIdentifier{1, 3, 6, 1, 5, 5, 7, 3, 4}}, {"ocsp", asn1.ObjectIdentifier{1, 3, 6, 1, 5, 5, 7, 3, 9}},
	{"unknown", asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 55555, 3, 1}}, {"ms-sgc", asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 311, 10, 3, 3}},
	{"ns-sgc", asn1.ObjectIdentifier{2, 16, 840, 1, 113730, 4, 1}},
}

func opEKU(m *caseModel, r *rand.Rand) string {
	i := anyTarget(m, r)
	c := m.chain[i]
	switch r.IntN(5) {
	case 0:
		c.dropExt(der.OIDEKU)
		return "eku.remove@" + roleOf(m, i)
	case 1:
		c.setExt(&ext{oid: der.OIDEKU, value: der.Seq()})
		return "eku.empty@" + roleOf(m, i)
	}
	n := 1 + r.IntN(3)
	var oids []asn1.ObjectIdentifier
	label := ""
	for k := 0; k < n; k++ {
		ch := ekuChoices[r.IntN(len(ekuChoices))]
		oids = append(oids, ch.oid)
		label += "." + ch.label
	}
	e := ekuExt(oids...)
	if r.IntN(4) == 0 {
		e.critical = true
		label += ".critical"
	}
	c.setExt(e)
	return "eku" + label + "@" + roleOf(m, i)
}

func opBC(m *caseModel, r *rand.Rand) string {
	i := anyTarget(m, r)
	c := m.chain[i]
	variants := []struct {
		label string
		value []byte
	}{
		{"ca-true", der.Seq(der.Bool(true))}, {"ca-false", der.Seq()}, {"ca-false-explicit", der.Seq(der.Bool(false))},
		{"ca-true-non-der", der.Seq([]byte{0x01, 0x01, 0x01})}, {"pathlen-0", der.Seq(der.Bool(true), der.Int(0))},
		{"pathlen-1", der.Seq(der.Bool(true), der.Int(1))}, {"pathlen-5", der.Seq(der.Bool(true), der.Int(5))},
		{"pathlen-neg", der.Seq(der.Bool(true), der.Int(-1))}, {"pathlen-2^31", der.Seq(der.Bool(true), der.Int(1<<31))},
		{"pathlen-2^63-1", der.Seq(der.Bool(true), der.Int(1<<63-1))}, {"pathlen-2^64", der.Seq(der.Bool(true), der.BigInt(new(big.Int).Lsh(big.NewInt(1), 64)))},
		{"pathlen-no-ca", der.Seq(der.Int(0))}, {"pathlen-non-minimal", der.Seq(der.Bool(true), []byte{0x02, 0x02, 0x00, 0x01})},
		{"trailing", der.Seq(der.Bool(true), der.Int(0), der.Null())}, {"not-seq", der.Bool(true)}, {"empty-value", []byte{}},
	}
	switch r.IntN(6) {
	case 0:
		c.dropExt(der.OIDBC)
		return "bc.remove@" + roleOf(m, i)
	case 1:
		if e := c.ext(der.OIDBC); e != nil {
			e.critical = !e.critical
			return "bc.toggle-critical@" + roleOf(m, i)
		}
	}
	v := variants[r.IntN(len(variants))]
	c.setExt(&ext{oid: der.OIDBC, critical: r.IntN(4) != 0, value: v.value})
	return "bc." + v.label + "@" + roleOf(m, i)
}

var extOIDs = []struct {
	label string
	oid   asn1.ObjectIdentifier
	value []byte
}{
	{"unknown", asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 55555, 1, 7}, der.Null()},
	{"unknown-2.5.29", asn1.ObjectIdentifier{2, 5, 29, 99}, der.Null()},
	{"policy-constraints", asn1.ObjectIdentifier{2, 5, 29, 36}, der.Seq(der.TLV(0x80, []byte{0}))},
	{"policy-constraints-inhibit", asn1.ObjectIdentifier{2, 5, 29, 36}, der.Seq(der.TLV(0x81, []byte{0}))},
	{"inhibit-any", asn1.ObjectIdentifier{2, 5, 29, 54}, der.Int(0)},
	{"policy-mappings", asn1.ObjectIdentifier{2, 5, 29, 33}, der.Seq(der.Seq(der.OID(asn1.ObjectIdentifier{1, 2, 3, 4}), der.OID(asn1.ObjectIdentifier{1, 2, 3, 5})))},
	{"netscape-type", asn1.ObjectIdentifier{2, 16, 840, 1, 113730, 1, 1}, der.BitString(0)},
	{"ocsp-nocheck", asn1.ObjectIdentifier{1, 3, 6, 1, 5, 5, 7, 48, 1, 5}, der.Null()},
	{"subject-dir-attrs", asn1.ObjectIdentifier{2, 5, 29, 9}, der.Seq(der.Seq(der.OID(asn1.ObjectIdentifier{2, 5, 4, 3}), der.Set(der.TLV(0x13, []byte("x")))))},
	{"crl-dp", asn1.ObjectIdentifier{2, 5, 29, 31}, der.Seq(der.Seq(der.Explicit(0, der.TLV(0xa0, der.TLV(0x86, []byte("http://crl.example.com/ca.crl"))))))},
	{"aia", asn1.ObjectIdentifier{1, 3, 6, 1, 5, 5, 7, 1, 1}, der.Seq(der.Seq(der.OID(asn1.ObjectIdentifier{1, 3, 6, 1, 5, 5, 7, 48, 1}), der.TLV(0x86, []byte("http://ocsp.example.com"))))},
	{"freshest-crl", asn1.ObjectIdentifier{2, 5, 29, 46}, der.Seq()},
	{"ct-poison", asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 11129, 2, 4, 3}, der.Null()},
	{"issuer-alt-name", asn1.ObjectIdentifier{2, 5, 29, 18}, der.Seq(der.TLV(0x82, []byte("ca.example.com")))},
}

func opExt(m *caseModel, r *rand.Rand) string {
	i := anyTarget(m, r)
	c := m.chain[i]
	switch r.IntN(8) {
	case 0:
		if len(c.exts) > 0 {
			e := c.exts[r.IntN(len(c.exts))]
			d := *e
			c.exts = append(c.exts, &d)
			return "ext.duplicate." + e.oid.String() + "@" + roleOf(m, i)
		}
	case 1:
		if len(c.exts) > 0 {
			e := c.exts[r.IntN(len(c.exts))]
			e.critRaw = der.Bool(false)
			return "ext.explicit-false." + e.oid.String() + "@" + roleOf(m, i)
		}
	case 2:
		if len(c.exts) > 0 {
			e := c.exts[r.IntN(len(c.exts))]
			e.critRaw = []byte{0x01, 0x01, 0x01}
			return "ext.critical-non-der." + e.oid.String() + "@" + roleOf(m, i)
		}
	case 3:
		if len(c.exts) > 0 {
			e := c.exts[r.IntN(len(c.exts))]
			e.critical = !e.critical
			return "ext.toggle-critical." + e.oid.String() + "@" + roleOf(m, i)
		}
	case 4:
		c.exts, c.emptyExts = nil, true
		return "ext.empty-list@" + roleOf(m, i)
	}
	x := extOIDs[r.IntN(len(extOIDs))]
	crit := r.IntN(2) == 0
	c.exts = append(c.exts, &ext{oid: x.oid, critical: crit, value: x.value})
	label := "noncritical"
	if crit {
		label = "critical"
	}
	return "ext.add." + x.label + "." + label + "@" + roleOf(m, i)
}

func opPolicy(m *caseModel, r *rand.Rand) string {
	i := anyTarget(m, r)
	c := m.chain[i]
	two31 := big.NewInt(1 << 31)
	two64 := new(big.Int).Lsh(big.NewInt(1), 64)
	b := func(v int64) *big.Int { return big.NewInt(v) }
	pols := []struct {
		label string
		der   []byte
	}{
		{"any", der.OID(asn1.ObjectIdentifier{2, 5, 29, 32, 0})}, {"p1", der.OID(asn1.ObjectIdentifier{1, 2, 3, 4})},
		{"ev", der.OID(asn1.ObjectIdentifier{2, 23, 140, 1, 2, 1})}, {"arc2^31", der.OIDArcs(b(1), b(2), two31)},
		{"arc2^64", der.OIDArcs(b(1), b(2), two64)}, {"p2", der.OID(asn1.ObjectIdentifier{1, 2, 3, 5})},
	}
	n := r.IntN(3)
	var infos [][]byte
	label := ""
	for k := 0; k <= n; k++ {
		p := pols[r.IntN(len(pols))]
		info := [][]byte{p.der}
		if r.IntN(4) == 0 {
			info = append(info, der.Seq(der.Seq(der.OID(asn1.ObjectIdentifier{1, 3, 6, 1, 5, 5, 7, 2, 1}), der.TLV(0x16, []byte("https://cps.example.com")))))
			label += ".q"
		}
		infos = append(infos, der.Seq(info...))
		label += "." + p.label
	}
	if r.IntN(10) == 0 {
		infos, label = nil, ".empty"
	}
	crit := r.IntN(3) == 0
	if crit {
		label += ".critical"
	}
	c.setExt(&ext{oid: asn1.ObjectIdentifier{2, 5, 29, 32}, critical: crit, value: der.Seq(infos...)})
	return "policy" + label + "@" + roleOf(m, i)
}
