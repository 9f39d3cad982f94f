package main

// Seed chains: the shapes Fabric deployments use (cryptogen's one-level CA, fabric-ca's root and
// intermediate, RSA CAs, name-constrained CAs), EC and RSA, each with its own names.

import (
	"encoding/asn1"
	"strings"
	"time"

	"fabric-ops/tools/x509-oracle/internal/der"
)

type seedChain struct {
	name   string
	chain  []*cert // leaf first, root last
	domain string  // the organisation's domain, which the names and constraints are built from
	host   string
	ip     []byte
}

// printable is what Go's x509.CreateCertificate (cryptogen, fabric-ca) writes: a PrintableString
// when the value allows it, a UTF8String otherwise.
func printable(o asn1.ObjectIdentifier, v string) attr {
	for _, c := range []byte(v) {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte(" '()+,-./:=?", c) >= 0
		if !ok {
			return attr{o, 0x0c, []byte(v)}
		}
	}
	return attr{o, 0x13, []byte(v)}
}
func utf8(o asn1.ObjectIdentifier, v string) attr { return attr{o, 0x0c, []byte(v)} }

func dnsName(s string) gname   { return gname{0x82, []byte(s)} }
func emailName(s string) gname { return gname{0x81, []byte(s)} }
func uriName(s string) gname   { return gname{0x86, []byte(s)} }
func ipName(b []byte) gname    { return gname{0x87, b} }

func kuExt(critical bool, bits ...int) *ext {
	return &ext{oid: der.OIDKU, critical: critical, value: der.BitString(bits...)}
}

func ekuExt(oids ...asn1.ObjectIdentifier) *ext {
	var parts [][]byte
	for _, o := range oids {
		parts = append(parts, der.OID(o))
	}
	return &ext{oid: der.OIDEKU, value: der.Seq(parts...)}
}

func bcExt(ca bool, pathLen int) *ext {
	var parts [][]byte
	if ca {
		parts = append(parts, der.Bool(true))
	}
	if pathLen >= 0 {
		parts = append(parts, der.Int(int64(pathLen)))
	}
	return &ext{oid: der.OIDBC, critical: true, value: der.Seq(parts...)}
}

func sanExt(names ...gname) *ext { return &ext{oid: der.OIDSAN, san: names} }

func caCert(kr *keyRing, now time.Time, keyName string, serial int64, subject []attr, pathLen int, days int) *cert {
	return &cert{
		version: 2, serial: der.Int(serial), subject: subject,
		notBefore: der.Time(dayTime(now, -days/10)), notAfter: der.Time(dayTime(now, days)),
		key: kr.byName[keyName],
		exts: []*ext{
			kuExt(true, 0, 5, 6),
			bcExt(true, pathLen),
			{oid: der.OIDSKID},
			{oid: der.OIDAKID},
		},
		akidAuto: true, skidAuto: true,
	}
}

func leafCert(kr *keyRing, now time.Time, keyName string, serial int64, subject []attr, names ...gname) *cert {
	c := &cert{
		version: 2, serial: der.Int(serial), subject: subject,
		notBefore: der.Time(dayTime(now, -30)), notAfter: der.Time(dayTime(now, 335)),
		key: kr.byName[keyName],
		exts: []*ext{
			kuExt(true, 0),
			ekuExt(ekuServer, ekuClient),
			bcExt(false, -1),
			{oid: der.OIDAKID},
		},
		akidAuto: true,
	}
	if len(names) > 0 {
		c.exts = append(c.exts, sanExt(names...))
	}
	return c
}

func fabricSubject(org, ou, cn string) []attr {
	s := []attr{printable(der.OIDC, "US"), printable(oidST, "California"), printable(oidL, "San Francisco"), printable(der.OIDO, org)}
	if ou != "" {
		s = append(s, printable(der.OIDOU, ou))
	}
	return append(s, printable(der.OIDCN, cn))
}

func subtreeOf(g gname) subtree { return subtree{base: g} }

func seeds(kr *keyRing, now time.Time) []seedChain {
	var out []seedChain
	add := func(name, domain, host string, ip []byte, chain ...*cert) {
		// The root is self-issued: no AKID pointing elsewhere.
		root := chain[len(chain)-1]
		root.dropExt(der.OIDAKID)
		out = append(out, seedChain{name: name, chain: chain, domain: domain, host: host, ip: ip})
	}
	ip4 := func(a, b, c, d byte) []byte { return []byte{a, b, c, d} }

	// cryptogen: a TLS CA signing peers' and clients' certificates directly.
	{
		d := "org1.example.com"
		root := caCert(kr, now, "p256-0", 100, fabricSubject(d, "", "tlsca."+d), -1, 3650)
		root.exts = append(root.exts, ekuExt(ekuClient, ekuServer))
		leaf := leafCert(kr, now, "p256-1", 101, fabricSubject(d, "client", "Admin@"+d), dnsName("peer0."+d), dnsName("peer0"))
		add("cryptogen-ec", d, "peer0."+d, ip4(10, 1, 2, 3), leaf, root)
	}
	// fabric-ca: a root with pathLen 1, an intermediate CA, an enrolled client with attributes.
	{
		d := "org2.example.com"
		root := caCert(kr, now, "p256-2", 200, []attr{printable(der.OIDC, "US"), printable(oidST, "North Carolina"), printable(der.OIDO, "Hyperledger"), printable(der.OIDOU, "Fabric"), printable(der.OIDCN, "fabric-ca-server")}, 1, 5475)
		inter := caCert(kr, now, "p256-3", 201, []attr{printable(der.OIDC, "US"), printable(oidST, "North Carolina"), printable(der.OIDO, "Hyperledger"), printable(der.OIDOU, "client"), printable(der.OIDCN, "ica.org2")}, 0, 1825)
		leaf := leafCert(kr, now, "p256-4", 202, []attr{printable(der.OIDC, "US"), printable(der.OIDO, "Hyperledger"), printable(der.OIDOU, "client"), printable(der.OIDOU, "org2"), utf8(der.OIDCN, "user1")}, dnsName("client1."+d))
		leaf.exts = append(leaf.exts, &ext{oid: asn1.ObjectIdentifier{1, 2, 3, 4, 5, 6, 7, 8, 1}, value: []byte(`{"attrs":{"hf.Affiliation":"org2","hf.EnrollmentID":"user1","hf.Type":"client"}}`)})
		add("fabric-ca-ec", d, "client1."+d, ip4(10, 2, 0, 9), leaf, inter, root)
	}
	// RSA CAs, an EC client.
	{
		d := "org3.example.com"
		root := caCert(kr, now, "rsa2048-"+itoa(keyIndex(kr, "rsa2048", 0)), 300, fabricSubject(d, "", "ca."+d), -1, 3650)
		inter := caCert(kr, now, "rsa2048-"+itoa(keyIndex(kr, "rsa2048", 1)), 301, fabricSubject(d, "", "ica."+d), 0, 1825)
		leaf := leafCert(kr, now, "p256-5", 302, fabricSubject(d, "client", "User1@"+d), dnsName("peer1."+d), ipName(ip4(10, 3, 0, 1)))
		add("rsa-ca", d, "peer1."+d, ip4(10, 3, 0, 1), leaf, inter, root)
	}
	// A root with critical name constraints of every form, an intermediate, a leaf inside them.
	{
		d := "org4.example.com"
		root := caCert(kr, now, "p384-0", 400, fabricSubject(d, "", "nc-root."+d), -1, 3650)
		root.exts = append(root.exts, &ext{oid: der.OIDNC, critical: true, nc: &ncModel{
			permitted: []subtree{subtreeOf(dnsName(d)), subtreeOf(emailName(d)), subtreeOf(uriName("." + d)), subtreeOf(ipName([]byte{10, 0, 0, 0, 255, 0, 0, 0}))},
			excluded:  []subtree{subtreeOf(dnsName("bad." + d))},
		}})
		inter := caCert(kr, now, "p256-6", 401, fabricSubject(d, "", "ica."+d), -1, 1825)
		leaf := leafCert(kr, now, "p256-7", 402, fabricSubject(d, "client", "peer0."+d),
			dnsName("peer0."+d), emailName("admin@"+d), uriName("spiffe://peer0."+d+"/peer"), ipName(ip4(10, 4, 0, 1)))
		add("nc-root-ec", d, "peer0."+d, ip4(10, 4, 0, 1), leaf, inter, root)
	}
	// An RSA root, an EC intermediate constrained (not critically) with exclusions.
	{
		d := "org5.example.com"
		root := caCert(kr, now, "rsa2048-"+itoa(keyIndex(kr, "rsa2048", 2)), 500, fabricSubject(d, "", "ca."+d), -1, 3650)
		inter := caCert(kr, now, "p384-1", 501, fabricSubject(d, "", "ica."+d), 0, 1825)
		inter.exts = append(inter.exts, &ext{oid: der.OIDNC, nc: &ncModel{
			permitted: []subtree{subtreeOf(dnsName(".example.com")), subtreeOf(dnsName("example.com"))},
			excluded:  []subtree{subtreeOf(dnsName("org2.example.com")), subtreeOf(emailName(".evil.example.com")), subtreeOf(ipName([]byte{192, 168, 0, 0, 255, 255, 0, 0}))},
		}})
		leaf := leafCert(kr, now, "p256-6", 502, fabricSubject(d, "client", "orderer0."+d), dnsName("orderer0."+d), emailName("ops@"+d))
		add("nc-intermediate-rsa", d, "orderer0."+d, ip4(10, 5, 0, 1), leaf, inter, root)
	}
	// Two intermediates under a pathLen-2 root, an Ed25519 client.
	{
		d := "org6.example.com"
		root := caCert(kr, now, "p256-7", 600, fabricSubject(d, "", "root."+d), 2, 3650)
		i1 := caCert(kr, now, "p521", 601, fabricSubject(d, "", "ica1."+d), 1, 1825)
		i2 := caCert(kr, now, "p384-1", 602, fabricSubject(d, "", "ica2."+d), 0, 1825)
		leaf := leafCert(kr, now, "ed25519", 603, fabricSubject(d, "client", "user6@"+d), dnsName("user6."+d))
		add("two-intermediates", d, "user6."+d, ip4(10, 6, 0, 1), leaf, i2, i1, root)
	}
	// An EC root, an RSA client directly under it (no EKU: any purpose).
	{
		d := "org7.example.com"
		root := caCert(kr, now, "p256-1", 700, fabricSubject(d, "", "ca."+d), -1, 3650)
		leaf := leafCert(kr, now, "rsa1024", 701, fabricSubject(d, "client", "User7@"+d), dnsName("peer0."+d))
		leaf.key = kr.byName["rsa2048-"+itoa(keyIndex(kr, "rsa2048", 0))]
		leaf.dropExt(der.OIDEKU)
		add("direct-rsa-leaf", d, "peer0."+d, ip4(10, 7, 0, 1), leaf, root)
	}
	return out
}

// keyIndex finds the name suffix of the i-th key whose name starts with prefix (seed keys are
// named by their position in the ring).
func keyIndex(kr *keyRing, prefix string, i int) int {
	for n := 0; n < 100; n++ {
		if _, ok := kr.byName[prefix+"-"+itoa(n)]; ok {
			if i == 0 {
				return n
			}
			i--
		}
	}
	panic("no key " + prefix)
}
