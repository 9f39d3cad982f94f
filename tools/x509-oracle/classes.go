package main

import (
	"encoding/asn1"
	"fmt"
	"time"

	"fabric-ops/tools/x509-oracle/internal/der"
)

// generateAll builds every class of the corpus. Each class loops over a few variants; the seeded
// RNG picks key kinds and positions, so one seed always yields the same list of cases.
func (g *gen) generateAll() {
	r := g.makePools()
	goodRoots := []*cert{r.rsa, r.p256, r.p384, r.p521, r.ed, r.mixed, r.rotation}
	anyGood := func() *cert { return goodRoots[g.rnd.Intn(len(goodRoots))] }

	// simple: root -> n intermediates -> leaf, with optional tweaks, sent bottom-up.
	simple := func(class string, root *cert, n int, leafKind string, im func(i int, s *spec), lm func(*spec)) {
		g.begin(class)
		in := g.path(root, n, im)
		lk := g.key(leafKind)
		leaf := g.leaf(issuerOf(root, in), leafKind, func(s *spec) {
			s.pub = lk
			if lm != nil {
				lm(s)
			}
		})
		g.add(class, r.poolOf(root), lk, cat(leaf, in)...)
	}

	// ---- good chains
	for _, root := range []*cert{r.rsa, r.p256, r.p384, r.p521, r.ed, r.mixed} {
		for _, lk := range tlsKinds {
			simple("good-direct", root, 0, lk, nil, nil)
		}
	}
	for i := 0; i < 20; i++ {
		anchor := r.anchor
		if i%2 == 1 {
			anchor = r.anchorRSA
		}
		simple("good-intermediate-anchor", anchor, i%4, tlsKinds[i%5], nil, nil)
	}
	for depth := 1; depth <= 12; depth++ {
		for v := 0; v < 7; v++ {
			simple("good-chain", anyGood(), depth, tlsKinds[(depth+v)%5], nil, nil)
		}
	}
	for i := 0; i < 10; i++ { // the root itself sent along
		g.begin("good-root-included")
		root := anyGood()
		in := g.path(root, i%3, nil)
		leaf, lk := g.client(issuerOf(root, in))
		g.add("good-root-included", r.poolOf(root), lk, cat(leaf, in, []*cert{root})...)
	}

	// ---- order, duplicates, extras
	for i := 0; i < 36; i++ {
		g.begin("out-of-order")
		root := anyGood()
		in := g.path(root, 2+i%5, nil)
		leaf, lk := g.client(in[0])
		sent := append([]*cert{}, in...)
		if i%3 == 0 {
			for a, b := 0, len(sent)-1; a < b; a, b = a+1, b-1 {
				sent[a], sent[b] = sent[b], sent[a]
			}
		} else {
			for {
				g.rnd.Shuffle(len(sent), func(a, b int) { sent[a], sent[b] = sent[b], sent[a] })
				if sent[0] != in[0] {
					break
				}
			}
		}
		g.add("out-of-order", r.poolOf(root), lk, cat(leaf, sent)...)
	}
	for i := 0; i < 30; i++ {
		g.begin("duplicates")
		root := anyGood()
		in := g.path(root, 1+i%4, nil)
		leaf, lk := g.client(in[0])
		sent := append([]*cert{}, in...)
		switch i % 3 {
		case 0: // an intermediate twice
			d := in[g.rnd.Intn(len(in))]
			sent = append(sent, d)
		case 1: // the leaf again among the intermediates
			sent = append([]*cert{leaf}, sent...)
		default: // everything twice, interleaved
			var twice []*cert
			for _, c := range in {
				twice = append(twice, c, c)
			}
			sent = twice
		}
		g.add("duplicates", r.poolOf(root), lk, cat(leaf, sent)...)
	}
	for i := 0; i < 30; i++ {
		g.begin("extra-unrelated")
		root := anyGood()
		in := g.path(root, i%4, nil)
		leaf, lk := g.client(issuerOf(root, in))
		extras := []*cert{g.recent[g.rnd.Intn(len(g.recent))], g.root("Unrelated", fmt.Sprintf("Unrelated %d", i), kP256, nil)}
		sent := append([]*cert{}, in...)
		for _, e := range extras[:1+i%2] {
			pos := g.rnd.Intn(len(sent) + 1)
			sent = append(sent[:pos], append([]*cert{e}, sent[pos:]...)...)
		}
		g.add("extra-unrelated", r.poolOf(root), lk, cat(leaf, sent)...)
	}

	// ---- rotation: the same intermediate (name and key) issued twice
	for i := 0; i < 30; i++ {
		class := "cross-signed-untrusted-first"
		if i%2 == 1 {
			class = "renewed-expired-first"
		}
		g.begin(class)
		root := r.rotation
		k := g.key(g.pick(caKinds))
		subject := stdName("Case "+g.label, "Rotating CA")
		skid := []byte(fmt.Sprintf("rotating-key-%07d", i))
		good := g.issue(root, spec{subject: subject, pub: k, ca: true, skid: skid})
		var bad *cert
		if i%2 == 0 {
			bad = g.issue(r.offRoot, spec{subject: subject, pub: k, ca: true, skid: skid})
		} else {
			bad = g.issue(root, spec{subject: subject, pub: k, ca: true, skid: skid, notBefore: g.now.Add(-400 * day), notAfter: g.now.Add(-5 * day)})
		}
		leaf, lk := g.client(good)
		switch i % 6 {
		case 0, 1, 2, 3:
			g.add(class, "p7-path", lk, leaf, bad, good)
		case 4: // only the untrusted copy: nobody should admit this one
			g.add(class+"-only", "p7-path", lk, leaf, bad)
		default:
			g.add(class, "p7-path", lk, leaf, bad, bad, good)
		}
	}

	// ---- same-name decoys before the real issuer
	for i := 0; i < 32; i++ {
		g.begin("decoys")
		root := anyGood()
		in := g.path(root, 1+i%2, nil)
		leaf, lk := g.client(in[0])
		n := 20 + (i*7)%41
		var sent []*cert
		for d := 0; d < n; d++ {
			dk := g.decoyKey()
			var skid []byte
			if i%2 == 0 { // claims the real issuer's key id too
				skid = in[0].skid
			}
			decoy := g.issue(root, spec{subject: in[0].subject, pub: dk, ca: true, skid: skid})
			sent = append(sent, decoy)
		}
		sent = append(sent, in...)
		g.add("decoys", r.poolOf(root), lk, cat(leaf, sent)...)
	}
	for i := 0; i < 16; i++ {
		simple("many-intermediates", anyGood(), 11+i, g.pick(tlsKinds), nil, nil)
	}

	// ---- key identifiers and key usage
	for i := 0; i < 20; i++ {
		bogus := []byte(fmt.Sprintf("bogus-key-id-%07d", i))
		if i%2 == 0 {
			simple("akid-mismatch", anyGood(), 0, g.pick(tlsKinds), nil, func(s *spec) { s.akid = bogus })
		} else {
			simple("akid-mismatch", anyGood(), 2, g.pick(tlsKinds), func(j int, s *spec) {
				if j == 0 {
					s.akid = bogus
				}
			}, func(s *spec) { s.akid = bogus })
		}
	}
	for i := 0; i < 21; i++ {
		switch i % 3 {
		case 0:
			simple("ku-no-bits-leaf", anyGood(), i%3, g.pick(tlsKinds), nil, func(s *spec) { s.kuSet = true })
		case 1:
			simple("ku-no-bits-intermediate", anyGood(), 1, g.pick(tlsKinds), func(j int, s *spec) { s.kuSet = true }, nil)
		default:
			simple("ku-no-bits-intermediate", anyGood(), 2, g.pick(tlsKinds), func(j int, s *spec) {
				if j == 1 {
					s.kuSet = true
				}
			}, nil)
		}
	}
	kuVariants := [][]int{{kuKeyEncipherment}, {kuCertSign}, {3 /* dataEncipherment */}, {4 /* keyAgreement */}, {1 /* nonRepudiation */}}
	for i := 0; i < 15; i++ {
		ku := kuVariants[i%len(kuVariants)]
		simple("leaf-ku-without-digitalsignature", anyGood(), i%3, g.pick(tlsKinds), nil, func(s *spec) { s.kuSet = true; s.ku = ku })
	}

	// ---- EKU
	ekuLeaf := map[string][]asn1.ObjectIdentifier{
		"eku-clientauth":           {ekuClient},
		"eku-any":                  {ekuAny},
		"eku-serverauth-only":      {ekuServer},
		"eku-none":                 nil,
		"eku-client-and-server":    {ekuServer, ekuClient},
		"eku-unknown-purpose-only": {{1, 3, 6, 1, 4, 1, 55555, 3}},
	}
	for _, class := range sortedKeys(ekuLeaf) {
		eku := ekuLeaf[class]
		for i := 0; i < 10; i++ {
			simple(class, anyGood(), i%3, g.pick(tlsKinds), nil, func(s *spec) { s.ekuSet = true; s.eku = eku })
		}
	}
	ekuInter := map[string][]asn1.ObjectIdentifier{
		"eku-intermediate-serverauth": {ekuServer},
		"eku-intermediate-clientauth": {ekuClient},
		"eku-intermediate-any":        {ekuAny},
	}
	for _, class := range sortedKeys(ekuInter) {
		eku := ekuInter[class]
		for i := 0; i < 8; i++ {
			simple(class, anyGood(), 1+i%2, g.pick(tlsKinds), func(j int, s *spec) {
				if j == i%2 {
					s.ekuSet = true
					s.eku = eku
				}
			}, nil)
		}
	}
	for i := 0; i < 6; i++ {
		simple("eku-root-serverauth", r.ekuServer, i%3, g.pick(tlsKinds), nil, nil)
	}

	// ---- validity at each level
	expired := func(s *spec) { s.notBefore, s.notAfter = g.now.Add(-400*day), g.now.Add(-1*day) }
	notYet := func(s *spec) { s.notBefore, s.notAfter = g.now.Add(1*day), g.now.Add(400*day) }
	for i := 0; i < 8; i++ {
		simple("expired-leaf", anyGood(), i%3, g.pick(tlsKinds), nil, expired)
		simple("notyetvalid-leaf", anyGood(), i%3, g.pick(tlsKinds), nil, notYet)
		simple("expired-intermediate", anyGood(), 1+i%3, g.pick(tlsKinds), func(j int, s *spec) {
			if j == i%(1+i%3) {
				expired(s)
			}
		}, nil)
		simple("notyetvalid-intermediate", anyGood(), 1+i%3, g.pick(tlsKinds), func(j int, s *spec) {
			if j == i%(1+i%3) {
				notYet(s)
			}
		}, nil)
		simple("expired-root", r.expired, i%3, g.pick(tlsKinds), nil, nil)
		simple("notyetvalid-root", r.nyv, i%3, g.pick(tlsKinds), nil, nil)
	}

	// ---- signature and key algorithms
	rsaRoot := r.rsa
	for i := 0; i < 8; i++ {
		for _, alg := range []string{sigSHA1RSA, sigMD5RSA, sigPSS, sigPSSBad} {
			class := map[string]string{sigSHA1RSA: "sig-sha1", sigMD5RSA: "sig-md5", sigPSS: "sig-rsapss-good", sigPSSBad: "sig-rsapss-bad-salt"}[alg]
			if i%2 == 0 { // on the leaf: the issuing CA must hold an RSA key
				simple(class+"-leaf", rsaRoot, 1, g.pick(tlsKinds), func(j int, s *spec) { s.pub = g.key(kRSA) }, func(s *spec) { s.sigAlg = alg })
			} else { // on an intermediate issued by the RSA root
				simple(class+"-intermediate", rsaRoot, 1+i%3, g.pick(tlsKinds), func(j int, s *spec) {
					if j == 0 {
						s.sigAlg = alg
					}
				}, nil)
			}
		}
		simple("sig-sha1-root-selfsigned", r.sha1, i%2, g.pick(tlsKinds), nil, nil)
		simple("sig-rsapss-salt0-leaf", rsaRoot, 1, g.pick(tlsKinds), func(j int, s *spec) { s.pub = g.key(kRSA) }, func(s *spec) { s.sigAlg = sigPSSZero })
		g.begin("dsa-intermediate")
		lk := g.key(g.pick(tlsKinds))
		root := goodRoots[i%len(goodRoots)]
		dsaCA := g.inter(root, 1, kDSA, nil)
		g.add("dsa-intermediate", r.poolOf(root), lk, g.leaf(dsaCA, lk.kind, func(s *spec) { s.pub = lk }), dsaCA)
		g.begin("rsapss-key-intermediate")
		pssCA := g.inter(root, 1, kRSAPSS, nil)
		lk = g.key(g.pick(tlsKinds))
		g.add("rsapss-key-intermediate", r.poolOf(root), lk, g.leaf(pssCA, lk.kind, func(s *spec) { s.pub = lk }), pssCA)
	}
	for i := 0; i < 4; i++ {
		simple("leaf-key-dsa", anyGood(), i%2, kDSA, nil, nil)
		simple("leaf-key-rsapss", anyGood(), i%2, kRSAPSS, nil, nil)
	}

	// ---- encodings that are not DER
	outerLong := func(tbs, ai, sig []byte) []byte {
		return der.TLVLong(0x30, append(append(append([]byte{}, tbs...), ai...), sig...))
	}
	for i := 0; i < 12; i++ {
		g.encodingCase(r, anyGood(), "non-der-outer", i%3, func(s *spec) { s.mutateCert = outerLong })
	}
	for i := 0; i < 6; i++ {
		g.encodingCase(r, anyGood(), "non-der-tbs-length", i%3, func(s *spec) {
			s.mutateTBS = func(tbs []byte) []byte { return der.TLVLong(0x30, tbs[hdrLen(tbs):]) }
		})
		g.encodingCase(r, anyGood(), "non-der-tbs-boolean", i%3, func(s *spec) {
			s.mutateTBS = func(tbs []byte) []byte { return replaceOnce(tbs, []byte{0x01, 0x01, 0xff}, []byte{0x01, 0x01, 0x01}) }
		})
		g.encodingCase(r, anyGood(), "non-der-tbs-serial", i%3, func(s *spec) {
			g.serial++
			ser := 0x10000000 + g.serial
			s.serial = ser
			s.mutateTBS = func(tbs []byte) []byte {
				enc := der.Int(ser)
				padded := append([]byte{0x02, enc[1] + 1, 0x00}, enc[2:]...)
				return der.TLV(0x30, replaceOnce(tbs[hdrLen(tbs):], enc, padded))
			}
		})
	}

	// ---- strings Go's parser refuses
	badNames := map[string][]byte{
		"bad-string-printable-at":         rdnName(atv{der.OIDO, tagPrintable, []byte("user@org")}, atv{der.OIDCN, tagUTF8, []byte("x")}),
		"bad-string-printable-underscore": rdnName(atv{der.OIDO, tagPrintable, []byte("org_unit")}, atv{der.OIDCN, tagUTF8, []byte("x")}),
		"bad-string-ia5-8bit":             rdnName(atv{der.OIDO, tagPrintable, []byte("Org")}, atv{oidEmail, tagIA5, []byte("caf\xe9@example.com")}),
		"bad-string-utf8-invalid":         rdnName(atv{der.OIDO, tagPrintable, []byte("Org")}, atv{der.OIDCN, tagUTF8, []byte("bad\xc3\x28")}),
		"bad-string-bmp-odd-length":       rdnName(atv{der.OIDO, tagPrintable, []byte("Org")}, atv{der.OIDCN, tagBMP, []byte{0x00, 0x41, 0x00}}),
	}
	for _, class := range sortedKeys(badNames) {
		nm := badNames[class]
		for i := 0; i < 9; i++ {
			g.encodingCase(r, anyGood(), class, i%3, func(s *spec) {
				// keep the case's own label in the name so the name stays unique
				s.subject = der.Seq(nm[hdrLen(nm):], der.Set(der.Seq(der.OID(der.OIDOU), der.TLV(tagUTF8, []byte(g.label)))))
			})
		}
	}
	badSANs := map[string][]byte{
		"bad-string-san-dns-8bit":   der.Seq(der.TLV(0x82, []byte("caf\xe9.example.com"))),
		"bad-string-san-email-8bit": der.Seq(der.TLV(0x81, []byte("caf\xe9@example.com"))),
		"ip-san-5-bytes":            der.Seq(der.TLV(0x87, []byte{10, 0, 0, 1, 7})),
		"uri-san-unparsable":        der.Seq(der.TLV(0x86, []byte("http://example.com/%zz"))),
	}
	for _, class := range sortedKeys(badSANs) {
		v := badSANs[class]
		for i := 0; i < 8; i++ {
			where := []int{0, 0, 2, 2}[i%4] // SANs matter on leaves; also on an extra certificate
			g.encodingCase(r, anyGood(), class, where, func(s *spec) { s.san = v; s.noSAN = false })
		}
	}
	for i := 0; i < 12; i++ {
		g.encodingCase(r, anyGood(), "duplicate-extension", i%3, func(s *spec) {
			s.extra = append(s.extra, ext{oidUnknownExt, false, []byte{0x05, 0x00}}, ext{oidUnknownExt, false, []byte{0x05, 0x00}})
		})
	}
	for i := 0; i < 8; i++ {
		g.begin("explicit-ec-params")
		root := anyGood()
		lk := g.key(kP256)
		if i%2 == 0 { // the leaf's key
			leaf := g.leaf(root, kP256, func(s *spec) { s.pub = lk; s.spki = lk.explicitECSPKI() })
			g.add("explicit-ec-params-leaf", r.poolOf(root), lk, leaf)
		} else { // an intermediate's key
			ck := g.key(kP256)
			ca := g.inter(root, 1, kP256, func(s *spec) { s.pub = ck; s.spki = ck.explicitECSPKI() })
			leaf := g.leaf(ca, kP256, func(s *spec) { s.pub = lk })
			g.add("explicit-ec-params-intermediate", r.poolOf(root), lk, leaf, ca)
		}
	}
	badBC := map[string][]byte{
		"malformed-basicconstraints-boolean-01":    {0x30, 0x03, 0x01, 0x01, 0x01},
		"malformed-basicconstraints-pathlen-neg":   {0x30, 0x06, 0x01, 0x01, 0xff, 0x02, 0x01, 0xff},
		"malformed-basicconstraints-trailing-byte": {0x30, 0x03, 0x01, 0x01, 0xff, 0x00},
		"malformed-basicconstraints-not-sequence":  {0x04, 0x00},
	}
	for _, class := range sortedKeys(badBC) {
		v := badBC[class]
		for i := 0; i < 4; i++ {
			if i%2 == 0 {
				simple(class+"-intermediate", anyGood(), 1, g.pick(tlsKinds), func(j int, s *spec) { s.bcValue = v }, nil)
			} else {
				simple(class+"-leaf", anyGood(), i%3, g.pick(tlsKinds), nil, func(s *spec) { s.bcValue = v })
			}
		}
	}

	// ---- names equal only after normalisation (the root's subject is C=US, O=Norm Org, CN=Norm Root, all PrintableString)
	normIssuers := map[string][]byte{
		"name-normalisation-case":       rdnName(atv{der.OIDC, tagPrintable, []byte("US")}, atv{der.OIDO, tagPrintable, []byte("NORM ORG")}, atv{der.OIDCN, tagPrintable, []byte("norm root")}),
		"name-normalisation-stringtype": rdnName(atv{der.OIDC, tagPrintable, []byte("US")}, atv{der.OIDO, tagUTF8, []byte("Norm Org")}, atv{der.OIDCN, tagUTF8, []byte("Norm Root")}),
		"name-normalisation-spaces":     rdnName(atv{der.OIDC, tagPrintable, []byte("US")}, atv{der.OIDO, tagPrintable, []byte(" Norm  Org ")}, atv{der.OIDCN, tagPrintable, []byte("Norm   Root")}),
		"name-exact-control":            rdnName(atv{der.OIDC, tagPrintable, []byte("US")}, atv{der.OIDO, tagPrintable, []byte("Norm Org")}, atv{der.OIDCN, tagPrintable, []byte("Norm Root")}),
	}
	for _, class := range sortedKeys(normIssuers) {
		iss := normIssuers[class]
		for i := 0; i < 10; i++ {
			if i%2 == 0 {
				simple(class, r.norm, 0, g.pick(tlsKinds), nil, func(s *spec) { s.issuer = iss })
			} else {
				simple(class, r.norm, 1+i%3, g.pick(tlsKinds), func(j int, s *spec) {
					if j == 0 { // the intermediate the root signed
						s.issuer = iss
					}
				}, nil)
			}
		}
	}

	// ---- critical extensions
	for i := 0; i < 8; i++ {
		other := der.Seq(der.Explicit(0, der.OID(asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 55555, 2}), der.Explicit(0, der.TLV(tagUTF8, []byte("someone")))))
		dir := der.Seq(der.Explicit(4, stdName("Org1", "someone")))
		simple("critical-san-othername-only", anyGood(), i%2, g.pick(tlsKinds), nil, func(s *spec) { s.san = other; s.sanCritical = true })
		simple("critical-san-dirname-only", anyGood(), i%2, g.pick(tlsKinds), nil, func(s *spec) { s.san = dir; s.sanCritical = true })
		simple("noncritical-san-othername-only", anyGood(), i%2, g.pick(tlsKinds), nil, func(s *spec) { s.san = other })
	}
	critExts := map[string]ext{
		"critical-policyconstraints": {oidPolicyCons, true, der.Seq(der.TLV(0x80, []byte{0}))},
		"critical-policymappings":    {oidPolicyMap, true, der.Seq(der.Seq(der.OID(asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 55555, 4, 1}), der.OID(asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 55555, 4, 2})))},
		"critical-inhibitanypolicy":  {oidInhibitAny, true, der.Int(0)},
		"critical-netscape-certtype": {oidNetscape, true, der.BitString(0, 1)},
		"critical-ocsp-nocheck":      {oidOCSPNoChk, true, der.Null()},
		"critical-unknown-oid":       {oidUnknownExt, true, der.Null()},
	}
	for _, class := range sortedKeys(critExts) {
		e := critExts[class]
		for i := 0; i < 8; i++ {
			switch i % 4 {
			case 0:
				simple(class+"-leaf", anyGood(), i%2, g.pick(tlsKinds), nil, func(s *spec) { s.extra = []ext{e} })
			case 1, 2:
				simple(class+"-intermediate", anyGood(), 1+i%2, g.pick(tlsKinds), func(j int, s *spec) {
					if j == 0 {
						s.extra = []ext{e}
					}
				}, nil)
			default:
				nc := e
				nc.critical = false
				simple("noncritical-"+class[len("critical-"):], anyGood(), 1, g.pick(tlsKinds), func(j int, s *spec) { s.extra = []ext{nc} }, func(s *spec) { s.extra = []ext{nc} })
			}
		}
	}

	// ---- name constraints (roots of p5 carry them; some cases put them on an intermediate instead)
	type ncCase struct {
		root *cert
		ok   []byte
		bad  []byte
	}
	ncs := map[string]ncCase{
		"nc-dns-permitted":     {r.ncDNS, der.Seq(der.TLV(0x82, []byte("client.example.com"))), der.Seq(der.TLV(0x82, []byte("client.example.org")))},
		"nc-dns-excluded":      {r.ncDNSEx, der.Seq(der.TLV(0x82, []byte("good.example.com"))), der.Seq(der.TLV(0x82, []byte("x.bad.example.com")))},
		"nc-ip-permitted":      {r.ncIP, der.Seq(der.TLV(0x87, []byte{10, 1, 2, 3})), der.Seq(der.TLV(0x87, []byte{192, 168, 1, 1}))},
		"nc-email-permitted":   {r.ncEmail, der.Seq(der.TLV(0x81, []byte("ops@example.com"))), der.Seq(der.TLV(0x81, []byte("ops@example.org")))},
		"nc-uri-permitted":     {r.ncURI, der.Seq(der.TLV(0x86, []byte("https://host.example.com/x"))), der.Seq(der.TLV(0x86, []byte("https://host.example.org/x")))},
		"nc-dirname-permitted": {r.ncDir, nil, nil},
	}
	for _, class := range sortedKeys(ncs) {
		c := ncs[class]
		for i := 0; i < 10; i++ {
			depth := (i / 2) % 2
			if c.ok == nil {
				okSubject := func(s *spec) {
					s.subject = rdnName(atv{der.OIDO, tagPrintable, []byte("Org1")}, atv{der.OIDCN, tagUTF8, []byte(g.label)})
				}
				if i%2 == 0 {
					simple(class+"-satisfied", c.root, 0, g.pick(tlsKinds), nil, okSubject)
				} else {
					simple(class+"-violated", c.root, 0, g.pick(tlsKinds), nil, nil)
				}
				continue
			}
			v, suffix := c.ok, "-satisfied"
			if i%2 == 1 {
				v, suffix = c.bad, "-violated"
			}
			simple(class+suffix, c.root, depth, g.pick(tlsKinds), nil, func(s *spec) { s.san = v })
		}
	}
	for i := 0; i < 12; i++ { // constraints on an intermediate
		constraint := der.Seq(der.Explicit(0, der.Seq(der.TLV(0x82, []byte("example.com")))))
		if i%3 == 2 {
			constraint = der.Seq(der.Explicit(1, der.Seq(der.Explicit(4, rdnName(atv{der.OIDO, tagPrintable, []byte("Evil")})))))
		}
		san := der.Seq(der.TLV(0x82, []byte("a.example.com")))
		class := "nc-intermediate-satisfied"
		if i%3 == 1 {
			san = der.Seq(der.TLV(0x82, []byte("a.example.net")))
			class = "nc-intermediate-violated"
		}
		if i%3 == 2 {
			class = "nc-intermediate-dirname-excluded"
		}
		simple(class, anyGood(), 1, g.pick(tlsKinds), func(j int, s *spec) { s.extra = []ext{{der.OIDNC, true, constraint}} }, func(s *spec) { s.san = san })
	}

	// ---- versions, basicConstraints, pathLen
	for i := 0; i < 8; i++ {
		simple("v1-intermediate-with-ca-true", anyGood(), 1, g.pick(tlsKinds), func(j int, s *spec) { s.version = 1 }, nil)
		simple("v2-intermediate-with-ca-true", anyGood(), 1, g.pick(tlsKinds), func(j int, s *spec) { s.version = 2 }, nil)
		simple("v1-root", r.v1, i%2, g.pick(tlsKinds), nil, nil)
		simple("v3-root-without-basicconstraints", r.noBC, i%2, g.pick(tlsKinds), nil, nil)
		simple("v1-leaf-with-extensions", anyGood(), i%2, g.pick(tlsKinds), nil, func(s *spec) {
			s.version = 1
			s.ekuSet = true
			s.eku = []asn1.ObjectIdentifier{ekuServer}
		})
		simple("intermediate-without-basicconstraints", anyGood(), 1, g.pick(tlsKinds), func(j int, s *spec) { s.noBC = true }, nil)
		simple("intermediate-ca-false", anyGood(), 1, g.pick(tlsKinds), func(j int, s *spec) { s.bcValue = der.Seq() }, nil)
	}
	for i := 0; i < 8; i++ {
		g.begin("self-issued-under-pathlen0")
		root := anyGood()
		k := g.key(kP256)
		ca := g.inter(root, 1, kP256, func(s *spec) { s.pub = k; s.hasPathLen = true })
		// self-issued: same subject and issuer name, new key, signed by ca's key
		nk := g.key(kP384)
		self := g.issue(ca, spec{subject: ca.subject, pub: nk, ca: true})
		leaf, lk := g.client(self)
		g.add("self-issued-under-pathlen0", r.poolOf(root), lk, leaf, self, ca)
	}
	for i := 0; i < 16; i++ {
		switch i % 4 {
		case 0:
			simple("pathlen-violation-root", r.path0, 1, g.pick(tlsKinds), nil, nil)
		case 1:
			simple("pathlen-violation-root", r.path1, 2, g.pick(tlsKinds), nil, nil)
		case 2:
			simple("pathlen-violation-intermediate", anyGood(), 2, g.pick(tlsKinds), func(j int, s *spec) {
				if j == 0 { // the upper intermediate: pathLen 0 with another intermediate below it
					s.hasPathLen = true
				}
			}, nil)
		default:
			simple("pathlen-ok", r.path1, 1, g.pick(tlsKinds), nil, nil)
			simple("pathlen-ok", r.path0, 0, g.pick(tlsKinds), nil, nil)
		}
	}

	// ---- more path building: Go's budget of 100 signature checks, anchors sent as leaves
	for i := 0; i < 12; i++ {
		g.begin("decoys-two-levels")
		root := anyGood()
		in := g.path(root, 2, nil)
		leaf, lk := g.client(in[0])
		var sent []*cert
		n := 30 + i*3 // per level: 30..63, so the search needs from about 60 to over 120 checks
		for level, real := range in {
			for d := 0; d < n; d++ {
				parent := root
				if level == 0 {
					parent = in[1]
				}
				sent = append(sent, g.issue(parent, spec{subject: real.subject, pub: g.decoyKey(), ca: true, skid: real.skid}))
			}
		}
		sent = append(sent, in...)
		g.add("decoys-two-levels", r.poolOf(root), lk, cat(leaf, sent)...)
	}
	for i := 0; i < 4; i++ {
		g.begin("leaf-is-trust-anchor")
		g.add("leaf-is-trust-anchor", "p6-odd", r.selfSignedClient.key, r.selfSignedClient)
		g.begin("leaf-self-signed-untrusted")
		lk := g.key(g.pick(tlsKinds))
		self := g.issue(nil, spec{subject: stdName("Case "+g.label, "self-signed client"), pub: lk, noAKID: true})
		g.add("leaf-self-signed-untrusted", r.poolOf(r.rsa), lk, self)
	}
	for i := 0; i < 6; i++ {
		g.begin("expired-root-copy-sent")
		root := goodRoots[i%len(goodRoots)]
		// the same name and key as the trusted root, expired, sent along as if an intermediate
		copyRoot := g.issue(nil, spec{subject: root.subject, pub: root.key, ca: true, noAKID: true, notBefore: g.now.Add(-900 * day), notAfter: g.now.Add(-400 * day)})
		in := g.path(root, i%2, nil)
		leaf, lk := g.client(issuerOf(root, in))
		g.add("expired-root-copy-sent", r.poolOf(root), lk, cat(leaf, in, []*cert{copyRoot})...)
	}
	for i := 0; i < 8; i++ {
		simple("generalizedtime-before-2050", anyGood(), i%2, g.pick(tlsKinds), nil, func(s *spec) { s.genTime = true })
	}
	if !g.realtime {
		for i := 0; i < 6; i++ {
			at := g.now
			switch i % 3 {
			case 0:
				simple("validity-boundary-notbefore-now", anyGood(), i%2, g.pick(tlsKinds), nil, func(s *spec) { s.notBefore = at })
			case 1:
				simple("validity-boundary-notafter-now", anyGood(), i%2, g.pick(tlsKinds), nil, func(s *spec) { s.notAfter = at })
			default:
				simple("validity-boundary-expired-1s", anyGood(), i%2, g.pick(tlsKinds), nil, func(s *spec) { s.notAfter = at.Add(-time.Second) })
			}
		}
	}

	// ---- CA files Go cannot parse
	for i := 0; i < 10; i++ {
		simple("ca-file-unparseable", r.unparseable, i%3, g.pick(tlsKinds), nil, nil)
	}

	g.generateGo126(anyGood, r.poolOf)

	// ---- the 64 KiB handshake-message limit
	for i := 0; i < 10; i++ {
		g.begin("message-size")
		root := anyGood()
		per := 16000
		count := 5 // about 80 KB in total: over the limit
		class := "message-size-over-64k"
		if i%2 == 1 {
			count = 3 // about 48 KB: under it
			class = "message-size-under-64k"
		}
		in := g.path(root, count, func(j int, s *spec) {
			pad := make([]byte, per)
			g.rnd.Read(pad)
			s.extra = []ext{{oidPadding, false, der.Octets(pad)}}
		})
		leaf, lk := g.client(in[0])
		g.add(class, r.poolOf(root), lk, cat(leaf, in)...)
	}

	g.generatePeriods()
}

// encodingCase puts a certificate built with mod at one of three places: the leaf (where=0), an
// intermediate (1) or an unrelated extra certificate the client also sends (2).
func (g *gen) encodingCase(r *roots, root *cert, class string, where int, mod func(*spec)) {
	suffix := []string{"-leaf", "-intermediate", "-extra"}[where]
	g.begin(class + suffix)
	lk := g.key(g.pick(tlsKinds))
	switch where {
	case 0:
		leaf := g.leaf(root, lk.kind, func(s *spec) { s.pub = lk; mod(s) })
		g.add(class+suffix, r.poolOf(root), lk, leaf)
	case 1:
		ca := g.inter(root, 1, g.pick(caKinds), mod)
		leaf := g.leaf(ca, lk.kind, func(s *spec) { s.pub = lk })
		g.add(class+suffix, r.poolOf(root), lk, leaf, ca)
	default:
		leaf := g.leaf(root, lk.kind, func(s *spec) { s.pub = lk })
		extra := g.leaf(root, kP256, func(s *spec) {
			s.subject = stdName("Case "+g.label, "extra")
			mod(s)
		})
		g.add(class+suffix, r.poolOf(root), lk, leaf, extra)
	}
}

func hdrLen(b []byte) int {
	if b[1] < 0x80 {
		return 2
	}
	return 2 + int(b[1]&0x7f)
}

func replaceOnce(b, old, new []byte) []byte {
	for i := 0; i+len(old) <= len(b); i++ {
		if string(b[i:i+len(old)]) == string(old) {
			out := append([]byte{}, b[:i]...)
			out = append(out, new...)
			return append(out, b[i+len(old):]...)
		}
	}
	panic(fmt.Sprintf("replaceOnce: % x not found", old))
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}
