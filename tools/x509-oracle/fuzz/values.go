package main

// Name values the mutations draw from, built around a seed's own domain so that most of them sit
// near a constraint's edge (inside, outside, one period away).

import (
	"math/rand/v2"
	"strings"
)

type pick struct {
	label string
	val   string
}

func choose(r *rand.Rand, list []pick) pick { return list[r.IntN(len(list))] }

func parent(d string) string {
	if i := strings.IndexByte(d, '.'); i >= 0 {
		return d[i+1:]
	}
	return d
}

// dnsValues: host names (SAN dNSName values) near domain d and host h.
func dnsValues(d, h string) []pick {
	return []pick{
		{"host", h}, {"domain", d}, {"upper", strings.ToUpper(h)}, {"leading-dot", "." + h},
		{"leading-dots", ".." + h}, {"trailing-dot", h + "."}, {"empty", ""}, {"dot", "."},
		{"wildcard", "*." + d}, {"wildcard-parent", "*." + parent(d)}, {"star", "*"}, {"star-mid", "a*." + d},
		{"double-wildcard", "*.*." + d}, {"inner-empty-label", "peer0.." + d}, {"xn", "xn--bcher-kva." + d},
		{"8bit", "b\xfccher." + d}, {"utf8", "bücher." + d}, {"space", "peer 0." + d}, {"underscore", "peer_0." + d},
		{"hyphen-first", "-peer." + d}, {"label-63", strings.Repeat("a", 63) + "." + d}, {"label-64", strings.Repeat("a", 64) + "." + d},
		{"name-254", strings.Repeat("abcdefghi.", 24) + d}, {"ip-like", "10.4.0.1"}, {"sibling", "peer0.org9.example.com"},
		{"parent", parent(d)}, {"suffix-trick", "evil" + d}, {"extend-trick", d + ".evil.com"},
		{"upper-trailing", strings.ToUpper(h) + "."}, {"nul", "peer0\x00." + d}, {"digits", "123." + d}, {"localhost", "localhost"},
		{"bad-label", "peer0.bad." + d},
	}
}

func emailValues(d, h string) []pick {
	var out []pick
	for _, dv := range []pick{{"domain", d}, {"host", h}, {"leading-dot", "." + d}, {"upper", strings.ToUpper(d)}, {"trailing-dot", d + "."}, {"parent", parent(d)}, {"sub", "mail." + d}} {
		out = append(out, pick{"user@" + dv.label, "admin@" + dv.val})
	}
	return append(out,
		pick{"no-at", "admin"}, pick{"empty-local", "@" + d}, pick{"empty-domain", "admin@"}, pick{"two-at", "a@b@" + d},
		pick{"quoted", "\"a@b\"@" + d}, pick{"quoted-space", "\"a b\"@" + d}, pick{"plus", "admin+x@" + d}, pick{"upper-local", "ADMIN@" + d},
		pick{"8bit-local", "adm\xe9n@" + d}, pick{"utf8-local", "admín@" + d}, pick{"ip-literal", "admin@[10.4.0.1]"}, pick{"empty", ""},
		pick{"dot-local", ".admin@" + d}, pick{"space", "ad min@" + d}, pick{"bad", "x@bad." + d},
	)
}

func uriValues(d, h string) []pick {
	return []pick{
		{"https", "https://" + h + "/"}, {"spiffe", "spiffe://" + h + "/peer"}, {"port", "https://" + h + ":7051/x"},
		{"leading-dot", "https://." + h + "/"}, {"trailing-dot", "https://" + h + "./"}, {"upper", "HTTPS://" + strings.ToUpper(h) + "/"},
		{"userinfo", "https://user:pw@" + h + "/"}, {"ipv4", "https://10.4.0.1/"}, {"ipv6", "https://[::1]/"},
		{"ipv6-zone", "https://[fe80::1%25eth0]/"}, {"urn", "urn:uuid:6e8bc430-9c3a-11d9-9669-0800200c9a66"}, {"mailto", "mailto:admin@" + d},
		{"no-host", "https:///path"}, {"scheme-relative", "//" + h + "/"}, {"empty", ""}, {"no-scheme", h},
		{"pct-host", "https://peer%30." + d + "/"}, {"8bit", "https://b\xfccher." + d + "/"}, {"space", "https://a b." + d + "/"},
		{"domain", "https://" + d + "/"}, {"sibling", "https://peer0.org9.example.com/"}, {"query", "https://" + h + "?a=b#c"},
		{"percent-bad", "https://" + h + "/%zz"}, {"bracket-bad", "https://[" + h + "]/"},
	}
}

// constraintValues: values of DNS, email and URI name constraints near domain d.
func dnsConstraintValues(d string) []pick {
	return []pick{
		{"domain", d}, {"dot-domain", "." + d}, {"dots-domain", ".." + d}, {"dot", "."}, {"empty", ""},
		{"parent", parent(d)}, {"dot-parent", "." + parent(d)}, {"upper", strings.ToUpper(d)}, {"trailing-dot", d + "."},
		{"wildcard", "*." + d}, {"sibling", "org9.example.com"}, {"host", "peer0." + d}, {"8bit", "b\xfccher." + d},
		{"space", "a b." + d}, {"bad", "bad." + d}, {"tld", "com"}, {"inner-empty", "a.." + d},
	}
}

func emailConstraintValues(d string) []pick {
	return append(dnsConstraintValues(d),
		pick{"mailbox", "admin@" + d}, pick{"at-domain", "@" + d}, pick{"upper-mailbox", "ADMIN@" + strings.ToUpper(d)},
		pick{"mailbox-other", "other@" + d}, pick{"quoted-mailbox", "\"admin\"@" + d},
	)
}

func uriConstraintValues(d string) []pick {
	return append(dnsConstraintValues(d), pick{"uri", "https://" + d}, pick{"ipv4", "10.4.0.1"})
}

type ipPick struct {
	label string
	val   []byte
}

func ipValues(own []byte) []ipPick {
	return []ipPick{
		{"own", own}, {"ten", []byte{10, 0, 0, 1}}, {"outside", []byte{11, 0, 0, 1}}, {"loopback", []byte{127, 0, 0, 1}},
		{"v6-loop", append(make([]byte, 15), 1)}, {"v4-mapped", append(append(make([]byte, 10), 0xff, 0xff), own...)},
		{"zero", []byte{0, 0, 0, 0}}, {"len0", []byte{}}, {"len5", []byte{10, 0, 0, 1, 0}}, {"len8", []byte{10, 0, 0, 0, 255, 0, 0, 0}},
		{"len16-v6", []byte{0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}}, {"private", []byte{192, 168, 1, 1}},
	}
}

func ipConstraintValues() []ipPick {
	return []ipPick{
		{"ten-8", []byte{10, 0, 0, 0, 255, 0, 0, 0}}, {"ten-32", []byte{10, 4, 0, 1, 255, 255, 255, 255}}, {"all-0", make([]byte, 8)},
		{"noncontig", []byte{10, 0, 0, 0, 255, 0, 255, 0}}, {"host-bits", []byte{10, 4, 0, 1, 255, 0, 0, 0}},
		{"private-16", []byte{192, 168, 0, 0, 255, 255, 0, 0}}, {"len4", []byte{10, 0, 0, 0}}, {"len0", []byte{}}, {"len9", make([]byte, 9)},
		{"v6-all", make([]byte, 32)}, {"v6-loop-128", append(append(make([]byte, 15), 1), bytesOf(0xff, 16)...)},
		{"v4mapped-96", append(append(append(make([]byte, 10), 0xff, 0xff), 10, 0, 0, 0), append(bytesOf(0xff, 13), 0, 0, 0)...)},
		{"len16-v4-in-v6-form", []byte{10, 0, 0, 0, 0, 0, 0, 0, 255, 0, 0, 0, 0, 0, 0, 0}},
	}
}

func bytesOf(b byte, n int) []byte {
	out := make([]byte, n)
	for i := range out {
		out[i] = b
	}
	return out
}
