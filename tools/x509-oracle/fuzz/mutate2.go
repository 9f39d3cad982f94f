package main

import (
	"math/big"
	"math/rand/v2"
	"sort"
	"time"
	"unicode/utf16"

	"fabric-ops/tools/x509-oracle/internal/der"
)

func opKey(m *caseModel, r *rand.Rand) string {
	i := target(m, r, 0.6)
	c := m.chain[i]
	pool := m.f.keys.names
	if i == 0 || r.IntN(3) == 0 {
		pool = append(append([]string(nil), m.f.keys.names...), m.f.keys.fakes...)
	}
	k := m.f.keys.byName[pool[r.IntN(len(pool))]]
	old := c.key
	c.key = k
	label := "key." + k.name
	if i > 0 && r.IntN(5) == 0 {
		// The CA's key changes but its children keep the old key's signatures.
		m.chain[i-1].staleSigner = old
		label += ".stale"
	}
	return label + "@" + roleOf(m, i)
}

func opSigAlg(m *caseModel, r *rand.Rand) string {
	i := anyTarget(m, r)
	c := m.chain[i]
	names := make([]string, 0, len(sigAlgs))
	for n := range sigAlgs {
		names = append(names, n)
	}
	sort.Strings(names)
	n := names[r.IntN(len(names))]
	if r.IntN(4) == 0 {
		c.outerAlg = n
		return "sigalg.outer." + n + "@" + roleOf(m, i)
	}
	c.sigAlg = n
	return "sigalg." + n + "@" + roleOf(m, i)
}

func opVersion(m *caseModel, r *rand.Rand) string {
	i := anyTarget(m, r)
	c := m.chain[i]
	switch v := r.IntN(8); v {
	case 0, 1, 2, 3:
		c.version, c.versionRaw = v, nil
		if v == 0 {
			c.versionRaw = nil
		}
		return "version.v" + itoa(v+1) + "@" + roleOf(m, i)
	case 4:
		c.versionRaw = der.Explicit(0, der.Int(0))
		return "version.explicit-v1@" + roleOf(m, i)
	case 5:
		c.versionRaw = der.Explicit(0, []byte{0x02, 0x02, 0x00, 0x02})
		return "version.non-minimal@" + roleOf(m, i)
	case 6:
		c.versionRaw = der.Explicit(0, der.Int(-1))
		return "version.negative@" + roleOf(m, i)
	}
	c.versionRaw = der.Explicit(0, der.Int(1<<62))
	return "version.huge@" + roleOf(m, i)
}

func opValidity(m *caseModel, r *rand.Rand) string {
	i := anyTarget(m, r)
	c := m.chain[i]
	now := m.at
	variants := []struct {
		label string
		nb    []byte
		na    []byte
	}{
		{"expired", nil, der.Time(now.Add(-24 * time.Hour))},
		{"not-yet-valid", der.Time(now.Add(24 * time.Hour)), nil},
		{"notafter-now", nil, der.Time(now)},
		{"notafter-now-1s", nil, der.Time(now.Add(-time.Second))},
		{"notbefore-now", der.Time(now), nil},
		{"notbefore-now+1s", der.Time(now.Add(time.Second)), nil},
		{"gentime-before-2050", der.GenTime(now.Add(-24 * time.Hour)), nil},
		{"utc-no-seconds", der.TLV(0x17, []byte(now.Add(-48*time.Hour).Format("0601021504Z"))), nil},
		{"utc-offset", der.TLV(0x17, []byte(now.Add(-48*time.Hour).Format("060102150405")+"+0000")), nil},
		{"gentime-fraction", nil, der.TLV(0x18, []byte("20300101000000.5Z"))},
		{"gentime-no-z", nil, der.TLV(0x18, []byte("20300101000000"))},
		{"utc-lower-z", der.TLV(0x17, []byte(now.Add(-48*time.Hour).Format("060102150405")+"z")), nil},
		{"year-2049", nil, der.UTCTime(time.Date(2049, 12, 31, 23, 59, 59, 0, time.UTC))},
		{"year-2050-utc", nil, der.TLV(0x17, []byte("500101000000Z"))},
		{"year-2050-gen", nil, der.GenTime(time.Date(2050, 1, 1, 0, 0, 0, 0, time.UTC))},
		{"year-9999", nil, der.TLV(0x18, []byte("99991231235959Z"))},
		{"inverted", der.Time(now.Add(48 * time.Hour)), der.Time(now.Add(-48 * time.Hour))},
		{"gentime-year-0", der.TLV(0x18, []byte("00000101000000Z")), nil},
		{"utc-feb-30", der.TLV(0x17, []byte("250230000000Z")), nil},
		{"utc-hour-24", der.TLV(0x17, []byte("250101240000Z")), nil},
		{"wrong-tag", der.TLV(0x04, []byte("250101000000Z")), nil},
	}
	v := variants[r.IntN(len(variants))]
	if v.nb != nil {
		c.notBefore = v.nb
	}
	if v.na != nil {
		c.notAfter = v.na
	}
	return "validity." + v.label + "@" + roleOf(m, i)
}

var stringTags = []struct {
	label string
	tag   byte
}{
	{"printable", 0x13}, {"utf8", 0x0c}, {"ia5", 0x16}, {"t61", 0x14}, {"bmp", 0x1e}, {"numeric", 0x12},
	{"visible", 0x1a}, {"universal", 0x1c}, {"general", 0x1b}, {"graphic", 0x19}, {"octet", 0x04},
}

func encodeAs(tag byte, s string) []byte {
	switch tag {
	case 0x1e:
		var out []byte
		for _, u := range utf16.Encode([]rune(s)) {
			out = append(out, byte(u>>8), byte(u))
		}
		return out
	case 0x1c:
		var out []byte
		for _, c := range s {
			out = append(out, 0, 0, byte(c>>8), byte(c))
		}
		return out
	}
	return []byte(s)
}

func opString(m *caseModel, r *rand.Rand) string {
	i := anyTarget(m, r)
	c := m.chain[i]
	if len(c.subject) == 0 {
		return "string.none@" + roleOf(m, i)
	}
	k := r.IntN(len(c.subject))
	a := c.subject[k]
	st := stringTags[r.IntN(len(stringTags))]
	contents := []struct{ label, val string }{
		{"same", string(a.val)}, {"underscore", string(a.val) + "_x"}, {"at", string(a.val) + "@x"}, {"star-amp", "a*&b"},
		{"8bit", string(a.val) + "\xe9"}, {"utf8", string(a.val) + "é"}, {"empty", ""}, {"digits", "12345"}, {"space", " " + string(a.val) + " "},
		{"upper", upper(string(a.val))}, {"nul", "a\x00b"},
	}
	ct := contents[r.IntN(len(contents))]
	na := attr{a.oid, st.tag, encodeAs(st.tag, ct.val)}
	if i > 0 && r.IntN(3) == 0 {
		// Only the child's issuer field is re-encoded: Go compares issuer and subject as bytes.
		child := m.chain[i-1]
		saved := c.subject[k]
		c.subject[k] = na
		child.issuerRaw = c.subjectDER()
		c.subject[k] = saved
		return "string.issuer-only." + st.label + "." + ct.label + "@" + roleOf(m, i)
	}
	if r.IntN(6) == 0 {
		c.subject = append(c.subject, attr{oidEmailA, 0x16, []byte("admin@" + m.seed.domain)})
		return "string.add-email-attr@" + roleOf(m, i)
	}
	c.subject[k] = na
	return "string." + st.label + "." + ct.label + "@" + roleOf(m, i)
}

func upper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 32
		}
	}
	return string(b)
}

func opSerial(m *caseModel, r *rand.Rand) string {
	i := anyTarget(m, r)
	c := m.chain[i]
	big20 := new(big.Int).Lsh(big.NewInt(1), 159)
	variants := []struct {
		label string
		der   []byte
	}{
		{"zero", der.Int(0)}, {"negative", der.Int(-5)}, {"20-bytes-high-bit", der.BigInt(big20)},
		{"21-bytes", der.BigInt(new(big.Int).Lsh(big.NewInt(1), 167))}, {"non-minimal", []byte{0x02, 0x02, 0x00, 0x05}},
		{"empty", []byte{0x02, 0x00}}, {"40-bytes", der.BigInt(new(big.Int).Lsh(big.NewInt(1), 318))},
		{"same-as-issuer", nil},
	}
	v := variants[r.IntN(len(variants))]
	if v.der == nil {
		if i+1 < len(m.chain) {
			c.serial = m.chain[i+1].serial
		}
	} else {
		c.serial = v.der
	}
	return "serial." + v.label + "@" + roleOf(m, i)
}

func opUID(m *caseModel, r *rand.Rand) string {
	i := anyTarget(m, r)
	c := m.chain[i]
	switch r.IntN(4) {
	case 0:
		c.uids = der.TLV(0x81, []byte{0, 0xaa})
		return "uid.issuer@" + roleOf(m, i)
	case 1:
		c.uids = der.TLV(0x82, []byte{0, 0xbb})
		return "uid.subject@" + roleOf(m, i)
	case 2:
		c.uids = concat(der.TLV(0x81, []byte{0, 0xaa}), der.TLV(0x82, []byte{0, 0xbb}))
		return "uid.both@" + roleOf(m, i)
	}
	c.uids = der.TLV(0xa1, der.TLV(0x03, []byte{0, 0xaa}))
	return "uid.constructed@" + roleOf(m, i)
}

// opLength re-encodes one TLV of the TBS with a non-minimal length (or an indefinite one), then
// the TBS is signed as it is.
func opLength(m *caseModel, r *rand.Rand) string {
	i := anyTarget(m, r)
	c := m.chain[i]
	pickN := r.IntN(1 << 20)
	indef := r.IntN(4) == 0
	label := "long"
	if indef {
		label = "indefinite"
	}
	c.tbsTree = func(t *node) {
		var all []*node
		t.walk(func(n *node) {
			if !indef || n.cons {
				all = append(all, n)
			}
		})
		n := all[pickN%len(all)]
		if indef {
			n.indefLen = true
		} else {
			n.longLen = true
		}
	}
	return "length." + label + "@" + roleOf(m, i)
}

// opTag changes the tag of one string (or any primitive) in the TBS.
func opTag(m *caseModel, r *rand.Rand) string {
	i := anyTarget(m, r)
	c := m.chain[i]
	pickN := r.IntN(1 << 20)
	st := stringTags[r.IntN(len(stringTags))]
	c.tbsTree = func(t *node) {
		var all []*node
		t.walk(func(n *node) {
			switch n.tag {
			case 0x13, 0x0c, 0x16, 0x14, 0x1e, 0x12:
				all = append(all, n)
			}
		})
		if len(all) > 0 {
			all[pickN%len(all)].tag = st.tag
		}
	}
	return "tag.string-to-" + st.label + "@" + roleOf(m, i)
}

func opBytes(m *caseModel, r *rand.Rand) string {
	i := anyTarget(m, r)
	c := m.chain[i]
	switch r.IntN(7) {
	case 0:
		c.tbsTree = func(t *node) { t.kids = append(t.kids, &node{tag: 0x05}) }
		return "bytes.tbs-trailing-null@" + roleOf(m, i)
	case 1:
		c.outerBytes = func(b []byte) []byte { return append(b, 0x00) }
		return "bytes.trailing-after-cert@" + roleOf(m, i)
	case 2:
		c.outerBytes = func(b []byte) []byte {
			t, ok := parseTree(b)
			if !ok {
				return b
			}
			t.longLen = true
			return t.encode()
		}
		return "bytes.outer-long-length@" + roleOf(m, i)
	case 3:
		c.outerBytes = func(b []byte) []byte { return b[:len(b)-1] }
		return "bytes.truncated@" + roleOf(m, i)
	case 4:
		c.tbsTree = func(t *node) {
			for _, k := range t.kids {
				if k.tag == 0xa3 && len(k.kids) == 1 {
					k.kids[0].kids = append(k.kids[0].kids, &node{tag: 0x05})
				}
			}
		}
		return "bytes.extensions-trailing-null@" + roleOf(m, i)
	case 5:
		c.outerBytes = func(b []byte) []byte {
			t, ok := parseTree(b)
			if !ok || len(t.kids) != 3 {
				return b
			}
			t.kids[2].val = append([]byte{1}, t.kids[2].val[1:]...)
			return t.encode()
		}
		return "bytes.signature-unused-bits@" + roleOf(m, i)
	}
	pos := r.IntN(1 << 20)
	c.tbsBytes = func(b []byte) []byte {
		b = append([]byte(nil), b...)
		b[pos%len(b)] ^= 0x01
		return b
	}
	return "bytes.flip@" + roleOf(m, i)
}

func opSig(m *caseModel, r *rand.Rand) string {
	i := anyTarget(m, r)
	c := m.chain[i]
	if r.IntN(2) == 0 {
		c.badSig = true
		return "sig.corrupt@" + roleOf(m, i)
	}
	names := m.f.keys.names
	c.staleSigner = m.f.keys.byName[names[r.IntN(len(names))]]
	return "sig.wrong-key@" + roleOf(m, i)
}

func opShape(m *caseModel, r *rand.Rand) string {
	n := len(m.chain)
	switch r.IntN(8) {
	case 0:
		m.sent = []int{0}
		return "shape.leaf-only"
	case 1:
		m.sent = append(m.sent, n-1)
		return "shape.root-sent"
	case 2:
		m.sent = append(m.sent, 0)
		return "shape.leaf-twice"
	case 3:
		if len(m.sent) < 2 {
			return "shape.reversed-short"
		}
		rest := append([]int(nil), m.sent[1:]...)
		for a, b := 0, len(rest)-1; a < b; a, b = a+1, b-1 {
			rest[a], rest[b] = rest[b], rest[a]
		}
		m.sent = append([]int{m.sent[0]}, rest...)
		return "shape.reversed"
	case 4:
		other := m.f.seedDER[r.IntN(len(m.f.seedDER))]
		m.extra = append(m.extra, other[len(other)-1], other[0])
		return "shape.foreign-extras"
	case 5:
		if n > 2 {
			m.pool = []int{1}
			m.sent = []int{0}
			return "shape.intermediate-anchor"
		}
		m.pool = []int{n - 1, 0}
		m.sent = []int{0}
		return "shape.leaf-in-pool"
	case 6:
		other := m.f.seedDER[r.IntN(len(m.f.seedDER))]
		m.foreignPool = append(m.foreignPool, other[len(other)-1])
		if r.IntN(2) == 0 {
			m.pool = nil
			return "shape.foreign-pool-only"
		}
		return "shape.foreign-pool-too"
	}
	m.sent = nil
	return "shape.empty"
}

var operators = []operator{
	{"san-dns", 10, opSAN("dns")},
	{"san-email", 6, opSAN("email")},
	{"san-uri", 6, opSAN("uri")},
	{"san-ip", 4, opSAN("ip")},
	{"san-shape", 4, opSANShape},
	{"nc", 16, opNC},
	{"ku", 5, opKU},
	{"eku", 5, opEKU},
	{"bc", 5, opBC},
	{"ext", 6, opExt},
	{"policy", 3, opPolicy},
	{"key", 5, opKey},
	{"sigalg", 3, opSigAlg},
	{"version", 3, opVersion},
	{"validity", 4, opValidity},
	{"string", 4, opString},
	{"serial", 2, opSerial},
	{"uid", 1, opUID},
	{"length", 2, opLength},
	{"tag", 2, opTag},
	{"bytes", 2, opBytes},
	{"sig", 1, opSig},
	{"shape", 3, opShape},
}
