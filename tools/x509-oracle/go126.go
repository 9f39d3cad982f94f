package main

import (
	"encoding/asn1"
	"math/big"

	"fabric-ops/tools/x509-oracle/internal/der"
)

// The Go 1.26 classes: every verdict Go 1.26 gives differently from Go 1.19, each in both
// directions where one exists, with the item in the leaf, an intermediate, a CA file and an extra
// certificate the client sends, where that placement means something.

var (
	oidCertPolicies = asn1.ObjectIdentifier{2, 5, 29, 32}
	oidAnyPolicy    = asn1.ObjectIdentifier{2, 5, 29, 32, 0}
	oidPolicyA      = asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 55555, 7, 1}
	oidPolicyB      = asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 55555, 7, 2}
	oidPolicyHuge   = asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 55555, 1 << 31}
)

// policiesExt is a certificatePolicies extension naming each OID once, without qualifiers.
func policiesExt(critical bool, oids ...asn1.ObjectIdentifier) ext {
	var p [][]byte
	for _, o := range oids {
		p = append(p, der.Seq(der.OID(o)))
	}
	return ext{oidCertPolicies, critical, der.Seq(p...)}
}

// policyConstraintsExt: requireExplicitPolicy [0] and inhibitPolicyMapping [1], -1 leaves one out.
func policyConstraintsExt(critical bool, require, inhibitMapping int64) ext {
	var v [][]byte
	if require >= 0 {
		v = append(v, der.TLV(0x80, der.Int(require)[2:]))
	}
	if inhibitMapping >= 0 {
		v = append(v, der.TLV(0x81, der.Int(inhibitMapping)[2:]))
	}
	return ext{oidPolicyCons, critical, der.Seq(v...)}
}

func policyMappingsExt(critical bool, issuer, subject asn1.ObjectIdentifier) ext {
	return ext{oidPolicyMap, critical, der.Seq(der.Seq(der.OID(issuer), der.OID(subject)))}
}

// rsaSPKI is a SubjectPublicKeyInfo for an RSA key of the given modulus size and exponent that
// nobody holds the private half of: enough wherever the key is parsed, size-checked or refused.
func (g *gen) rsaSPKI(bitLen int, e int64, evenModulus bool) []byte {
	buf := make([]byte, (bitLen+7)/8)
	g.rnd.Read(buf)
	n := new(big.Int).SetBytes(buf)
	n.SetBit(n, bitLen-1, 1)
	for i := bitLen; i < len(buf)*8; i++ {
		n.SetBit(n, i, 0)
	}
	n.SetBit(n, 0, 1)
	if evenModulus {
		n.SetBit(n, 0, 0)
	}
	return der.Seq(der.Seq(der.OID(der.OIDRSA), der.Null()), der.Bits(der.Seq(der.BigInt(n), der.Int(e))))
}

func (g *gen) generateGo126(anyGood func() *cert, poolOf func(*cert) string) {
	const pool = "p8-go126"
	root := func(cn string, mod func(*spec)) *cert { return g.root("Pool Go 1.26", cn, kP256, mod) }
	sub := func(gn []byte) []byte { return der.Seq(gn) }
	dns := func(name string) []byte { return der.TLV(0x82, []byte(name)) }
	badBMP := func(cn string) []byte {
		// A BMPString holding a lone surrogate: refused since Go 1.25.
		return rdnName(atv{der.OIDO, tagPrintable, []byte("Case " + g.label)}, atv{der.OIDCN, tagBMP, []byte{0, 'x', 0xd8, 0x00}}, atv{der.OIDOU, tagUTF8, []byte(cn)})
	}
	goodBMP := func(cn string) []byte {
		return rdnName(atv{der.OIDO, tagPrintable, []byte("Case " + g.label)}, atv{der.OIDCN, tagBMP, []byte{0, 'o', 0, 'k'}}, atv{der.OIDOU, tagUTF8, []byte(cn)})
	}

	// The CA files of p8: a root each class below chains to, and the roots that carry an item.
	plain := root("Plain Root", nil)
	ncPermit := root("NC permitted example.com", func(s *spec) {
		s.extra = []ext{{der.OIDNC, true, der.Seq(der.Explicit(0, sub(dns("example.com"))))}}
	})
	ncExclude := root("NC excluded bad.example.com", func(s *spec) {
		s.extra = []ext{{der.OIDNC, true, der.Seq(der.Explicit(1, sub(dns("BAD.example.com"))))}}
	})
	ncURIExclude := root("NC URI excluded", func(s *spec) {
		s.extra = []ext{{der.OIDNC, true, der.Seq(der.Explicit(1, sub(der.TLV(0x86, []byte("example.com")))))}}
	})
	ncSelfSAN := root("NC with its own SAN outside", func(s *spec) {
		s.extra = []ext{{der.OIDNC, true, der.Seq(der.Explicit(0, sub(dns("example.com"))))}}
		s.san = der.Seq(dns("ca.other.net"))
	})
	negSerialRoot := root("Negative Serial Root", func(s *spec) { s.serial = -7 })
	negPathLenRoot := root("Negative PathLen Root", func(s *spec) { s.bcValue = der.Seq(der.Bool(true), der.Int(-1)) })
	badBMPRoot := g.issue(nil, spec{subject: badBMP("Bad BMP Root"), pub: g.key(kP256), ca: true, noAKID: true})
	goodBMPRoot := g.issue(nil, spec{subject: goodBMP("Good BMP Root"), pub: g.key(kP256), ca: true, noAKID: true})
	hugeArcRoot := root("Policy Arc Root", func(s *spec) { s.extra = []ext{policiesExt(false, oidPolicyHuge)} })
	manyNC := make([][]byte, 0, 1200)
	for i := 0; i < 1200; i++ {
		manyNC = append(manyNC, sub(dns(string(rune('a'+i%26))+"-"+itoa(i)+".example.com")))
	}
	manyNC = append(manyNC, sub(dns("example.com")))
	manyNCRoot := root("Many Constraints Root", func(s *spec) { s.extra = []ext{{der.OIDNC, true, der.Seq(der.Explicit(0, manyNC...))}} })
	g.pools[pool] = [][]string{
		{plain.pem()}, {ncPermit.pem()}, {ncExclude.pem()}, {ncURIExclude.pem()}, {ncSelfSAN.pem()},
		{negSerialRoot.pem(), negPathLenRoot.pem(), badBMPRoot.pem()}, {goodBMPRoot.pem()}, {hugeArcRoot.pem()}, {manyNCRoot.pem()},
	}

	// leafUnder sends [leaf, cas...] with the leaf issued by cas[0] (or by top when cas is empty).
	leafUnder := func(class string, top *cert, cas []*cert, lm func(*spec)) {
		lk := g.key(g.pick(tlsKinds))
		fake := false
		leaf := g.leaf(issuerOf(top, cas), lk.kind, func(s *spec) {
			s.pub = lk
			if lm != nil {
				lm(s)
			}
			fake = s.spki != nil
		})
		if fake { // nobody holds the key of a made-up SubjectPublicKeyInfo
			lk = nil
		}
		g.add(class, pool, lk, cat(leaf, cas)...)
	}
	// placed: the item (mod) on the leaf, an intermediate or an extra certificate, under plain.
	placed := func(class string, where int, mod func(*spec)) {
		suffix := []string{"-leaf", "-intermediate", "-extra"}[where]
		g.begin(class + suffix)
		switch where {
		case 0:
			leafUnder(class+suffix, plain, nil, mod)
		case 1:
			leafUnder(class+suffix, plain, []*cert{g.inter(plain, 1, g.pick(caKinds), mod)}, nil)
		default:
			leaf, lk := g.client(plain)
			extra := g.leaf(plain, kP256, func(s *spec) {
				s.subject = stdName("Case "+g.label, "extra")
				mod(s)
			})
			g.add(class+suffix, pool, lk, leaf, extra)
		}
	}
	underRoot := func(class string, top *cert, n int) {
		for i := 0; i < n; i++ {
			g.begin(class)
			leafUnder(class, top, nil, nil)
		}
	}
	for v := 0; v < 4; v++ {
		for where := 0; where < 3; where++ {
			// Go 1.23: a negative serial number fails to parse.
			placed("go126-negative-serial", where, func(s *spec) { s.serial = -int64(1 + g.rnd.Intn(1000)) })
			// Go 1.25: a negative pathLenConstraint fails to parse.
			placed("go126-negative-pathlen", where, func(s *spec) { s.ca = true; s.bcValue = der.Seq(der.Bool(true), der.Int(-2)) })
			// Go 1.25: a BMPString with a surrogate fails to parse; a proper one still parses.
			placed("go126-bmpstring-surrogate", where, func(s *spec) { s.subject = badBMP("bmp") })
			placed("go126-bmpstring-good", where, func(s *spec) { s.subject = goodBMP("bmp") })
			// Go 1.22: certificatePolicies OIDs with an arc of 2^31 or more parse.
			placed("go126-policy-oid-arc-2to31", where, func(s *spec) { s.extra = append(s.extra, policiesExt(false, oidPolicyHuge)) })
			// tlsmaxrsasize: any sent certificate with an RSA key over 8,192 bits is refused.
			placed("go126-rsa-over-8192", where, func(s *spec) { s.spki = g.rsaSPKI(8200, 65537, false) })
		}
		// The leaf's own key is never used by Verify: 8,192 bits exactly, an even exponent, a
		// 512-bit key are all admitted there (a Go server then refuses the handshake signature).
		g.begin("go126-rsa-8192-leaf")
		leafUnder("go126-rsa-8192-leaf", plain, nil, func(s *spec) { s.spki = g.rsaSPKI(8192, 65537, false) })
		// Go 1.24 crypto/rsa: an issuer key under 1,024 bits, with an even exponent or an even
		// modulus verifies nothing; as an unrelated extra it is harmless.
		for _, weak := range []struct {
			name string
			spki func() []byte
		}{
			{"rsa-512", func() []byte { return g.rsaSPKI(512, 65537, false) }},
			{"rsa-even-exponent", func() []byte { return g.rsaSPKI(2048, 65536, false) }},
			{"rsa-even-modulus", func() []byte { return g.rsaSPKI(2048, 65537, true) }},
		} {
			placed("go126-"+weak.name, 1, func(s *spec) { s.spki = weak.spki() })
			placed("go126-"+weak.name, 2, func(s *spec) { s.spki = weak.spki() })
		}
	}

	for v := 0; v < 6; v++ {
		// CA files: a root Go cannot parse is dropped from the pool; its chains find no issuer.
		underRoot("go126-negative-serial-ca-file", negSerialRoot, 1)
		underRoot("go126-negative-pathlen-ca-file", negPathLenRoot, 1)
		underRoot("go126-bmpstring-surrogate-ca-file", badBMPRoot, 1)
		underRoot("go126-bmpstring-good-ca-file", goodBMPRoot, 1)
		underRoot("go126-policy-oid-arc-2to31-ca-file", hugeArcRoot, 1)

		// Go 1.21: a CA's own SAN must satisfy the constraints of the CAs above it, but not its own.
		g.begin("go126-nc-ca-san-outside-ancestor")
		leafUnder("go126-nc-ca-san-outside-ancestor", ncPermit, []*cert{g.inter(ncPermit, 1, kP256, func(s *spec) { s.san = der.Seq(dns("ca.other.net")) })}, nil)
		g.begin("go126-nc-ca-san-inside-ancestor")
		leafUnder("go126-nc-ca-san-inside-ancestor", ncPermit, []*cert{g.inter(ncPermit, 1, kP256, func(s *spec) { s.san = der.Seq(dns("ca.example.com")) })}, nil)
		g.begin("go126-nc-own-san-outside-intermediate")
		leafUnder("go126-nc-own-san-outside-intermediate", plain, []*cert{g.inter(plain, 1, kP256, func(s *spec) {
			s.san = der.Seq(dns("ca.other.net"))
			s.extra = []ext{{der.OIDNC, true, der.Seq(der.Explicit(0, sub(dns("example.com"))))}}
		})}, nil)
		underRoot("go126-nc-own-san-outside-ca-file", ncSelfSAN, 1)

		// Go 1.24.11 / 1.26.2: an excluded DNS constraint also excludes a wildcard that could cover it.
		for i, name := range []string{"*.example.com", "*.EXAMPLE.COM", "*.other.example.com", "x.example.com"} {
			class := "go126-nc-excluded-wildcard-covers"
			if i >= 2 {
				class = "go126-nc-excluded-wildcard-clear"
			}
			g.begin(class)
			leafUnder(class, ncExclude, nil, func(s *spec) { s.san = der.Seq(dns(name)) })
		}
		// Go 1.22.11: a URI host with an IPv6 zone is an IP, which URI constraints cannot match.
		g.begin("go126-nc-uri-ipv6-zone")
		leafUnder("go126-nc-uri-ipv6-zone", ncURIExclude, nil, func(s *spec) { s.san = der.Seq(der.TLV(0x86, []byte("https://[fe80::1%25eth0]:8443/"))) })
		g.begin("go126-nc-uri-host")
		leafUnder("go126-nc-uri-host", ncURIExclude, nil, func(s *spec) { s.san = der.Seq(der.TLV(0x86, []byte("https://svc.other.org:8443/"))) })
		// CVE-2025-58187: 1,201 constraints against 300 names, which Go 1.19's 250,000-comparison
		// limit refused; Go 1.26 checks it in log-linear time and admits it.
		g.begin("go126-nc-many-constraints-many-names")
		leafUnder("go126-nc-many-constraints-many-names", manyNCRoot, nil, func(s *spec) {
			names := make([][]byte, 0, 300)
			for i := 0; i < 300; i++ {
				names = append(names, dns("n"+itoa(i)+".example.com"))
			}
			s.san = der.Seq(names...)
		})
	}

	// Go 1.24: the RFC 5280 / RFC 9618 policy graph, with the policy extensions handled (so a
	// critical one no longer refuses a chain by itself).
	type policyCase struct {
		class string
		ca    []ext // on the intermediate
		leaf  []ext
	}
	anyP := []asn1.ObjectIdentifier{oidAnyPolicy}
	for _, critical := range []bool{true, false} {
		suffix := "-noncritical"
		if critical {
			suffix = "-critical"
		}
		for _, pc := range []policyCase{
			{"go126-policy-require-explicit-none", []ext{policyConstraintsExt(critical, 0, -1)}, nil},
			{"go126-policy-require-explicit-met", []ext{policyConstraintsExt(critical, 0, -1), policiesExt(false, anyP...)}, []ext{policiesExt(false, oidPolicyA)}},
			{"go126-policy-require-explicit-disjoint", []ext{policyConstraintsExt(critical, 0, -1), policiesExt(false, oidPolicyB)}, []ext{policiesExt(false, oidPolicyA)}},
			{"go126-policy-inhibit-mapping", []ext{policyConstraintsExt(critical, 0, 0), policiesExt(false, oidPolicyA), policyMappingsExt(false, oidPolicyA, oidPolicyB)}, []ext{policiesExt(false, oidPolicyB)}},
			{"go126-policy-mapping-valid", []ext{policyConstraintsExt(false, 0, -1), policiesExt(false, oidPolicyA), policyMappingsExt(critical, oidPolicyA, oidPolicyB)}, []ext{policiesExt(false, oidPolicyB)}},
			{"go126-policy-mapping-to-anypolicy", []ext{policiesExt(false, oidPolicyA), policyMappingsExt(critical, oidPolicyA, oidAnyPolicy)}, []ext{policiesExt(false, oidPolicyA)}},
			{"go126-policy-mapping-from-anypolicy", []ext{policiesExt(false, oidPolicyA), policyMappingsExt(critical, oidAnyPolicy, oidPolicyA)}, []ext{policiesExt(false, oidPolicyA)}},
			{"go126-policy-inhibit-any-explicit", []ext{policyConstraintsExt(false, 0, -1), policiesExt(false, anyP...), {oidInhibitAny, critical, der.Int(0)}}, []ext{policiesExt(false, anyP...)}},
			{"go126-policy-inhibit-any-named", []ext{policyConstraintsExt(false, 0, -1), policiesExt(false, oidPolicyA), {oidInhibitAny, critical, der.Int(0)}}, []ext{policiesExt(false, oidPolicyA)}},
		} {
			for v := 0; v < 2; v++ {
				class := pc.class + suffix
				g.begin(class)
				ca := g.inter(plain, 1, g.pick(caKinds), func(s *spec) { s.extra = append(s.extra, pc.ca...) })
				leafUnder(class, plain, []*cert{ca}, func(s *spec) { s.extra = append(s.extra, pc.leaf...) })
			}
		}
	}

	// crypto/tls's Certificate-message limit: 256 KiB since Go 1.25 (it was 64 KiB).
	for i := 0; i < 4; i++ {
		g.begin("message-size")
		top := anyGood()
		count := 17 // about 272 KB: over 256 KiB
		class := "go126-message-size-over-256k"
		if i%2 == 1 {
			count = 12 // about 192 KB: under it, over 64 KiB
			class = "go126-message-size-under-256k"
		}
		in := g.path(top, count, func(j int, s *spec) {
			pad := make([]byte, 16000)
			g.rnd.Read(pad)
			s.extra = []ext{{oidPadding, false, der.Octets(pad)}}
		})
		leaf, lk := g.client(in[0])
		g.add(class, poolOf(top), lk, cat(leaf, in)...)
	}
}

func itoa(i int) string { return big.NewInt(int64(i)).String() }
