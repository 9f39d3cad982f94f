package main

// Names and name constraints Go 1.26's domain validity check refuses (parser.go domainNameValid,
// verify.go domainToReverseLabels): a SAN name that begins with a period, a constraint that
// begins with two, and a constraint that is a lone period; each next to a control Go admits.
// The constrained CAs appear both in the CA files (pool p9-periods) and sent as intermediates.

import "fabric-ops/tools/x509-oracle/internal/der"

func (g *gen) generatePeriods() {
	const pool = "p9-periods"
	root := func(cn string, mod func(*spec)) *cert { return g.root("Pool Periods", cn, kP256, mod) }
	sub := func(gn []byte) []byte { return der.Seq(gn) }
	dns := func(name string) []byte { return der.TLV(0x82, []byte(name)) }
	email := func(name string) []byte { return der.TLV(0x81, []byte(name)) }
	uri := func(name string) []byte { return der.TLV(0x86, []byte(name)) }
	permit := func(gn []byte) []ext { return []ext{{der.OIDNC, true, der.Seq(der.Explicit(0, sub(gn)))}} }
	exclude := func(gn []byte) []ext { return []ext{{der.OIDNC, true, der.Seq(der.Explicit(1, sub(gn)))}} }

	plain := root("Plain Root", nil)
	dnsPermit := root("NC DNS example.com", func(s *spec) { s.extra = permit(dns("example.com")) })
	emailPermit := root("NC email example.com", func(s *spec) { s.extra = permit(email("example.com")) })
	uriPermit := root("NC URI example.com", func(s *spec) { s.extra = permit(uri("example.com")) })
	// Constraints Go 1.26 cannot parse: these roots are dropped from the pool.
	badConstraints := map[string][]ext{
		"dns-double-period":   permit(dns("..example.com")),
		"uri-double-period":   exclude(uri("..example.com")),
		"dns-lone-period":     permit(dns(".")),
		"email-lone-period":   exclude(email(".")),
		"dns-single-period":   permit(dns(".example.com")), // the control: a proper-subdomain constraint
		"email-single-period": permit(email(".example.com")),
	}
	badRoots := map[string]*cert{}
	files := [][]string{{plain.pem()}, {dnsPermit.pem()}, {emailPermit.pem()}, {uriPermit.pem()}}
	for _, name := range sortedKeys(badConstraints) {
		c := root("NC "+name, func(s *spec) { s.extra = badConstraints[name] })
		badRoots[name] = c
		files = append(files, []string{c.pem()})
	}
	g.pools[pool] = files

	// leafUnder begins the case (again, where an intermediate was made for it first: the label
	// stays the same until a case is added) and adds it.
	leafUnder := func(class string, parent *cert, san []byte, rest ...*cert) {
		g.begin(class)
		lk := g.key(g.pick(tlsKinds))
		leaf := g.leaf(parent, lk.kind, func(s *spec) {
			s.pub = lk
			if san != nil {
				s.san = san
			} else {
				s.noSAN = true
			}
		})
		g.add(class, pool, lk, cat(leaf, rest)...)
	}
	sanCases := []struct {
		class  string
		parent *cert
		san    []byte
	}{
		{"period-uri-host-leading", plain, uri("https://.example.com/")},
		{"period-uri-host-control", plain, uri("https://a.example.com/")},
		{"period-dns-san-leading", dnsPermit, dns(".example.com")},
		{"period-dns-san-control", dnsPermit, dns("a.example.com")},
		{"period-email-san-leading", emailPermit, email("user@.example.com")},
		{"period-email-san-control", emailPermit, email("user@example.com")},
	}
	for v := 0; v < 2; v++ {
		for _, c := range sanCases {
			leafUnder(c.class, c.parent, der.Seq(c.san))
		}
		for _, name := range sortedKeys(badConstraints) {
			// In the CA file, with a leaf without SANs (and one with a name the constraint would permit).
			leafUnder("period-nc-"+name+"-ca-file", badRoots[name], nil)
			leafUnder("period-nc-"+name+"-ca-file", badRoots[name], der.Seq(dns("a.example.com")))
			// Sent as an intermediate under the plain root.
			g.begin("period-nc-" + name + "-intermediate")
			ca := g.inter(plain, 1, kP256, func(s *spec) { s.extra = badConstraints[name] })
			leafUnder("period-nc-"+name+"-intermediate", ca, nil, ca)
		}
	}
	// A URI SAN in an error text: Go prints it as url.URL.String() re-assembles it (the scheme in
	// lower case, the userinfo and fragment re-escaped).
	for _, u := range []string{"HTTPS://User:p!w@x.other.org/a%41 b?q#F g", "Spiffe://x.other.org/ns/a%2fb"} {
		leafUnder("text-uri-reserialised", uriPermit, der.Seq(uri(u)))
	}
	// The IP constraint's text: Go quotes a *net.IPNet once.
	ipExclude := g.inter(plain, 1, kP256, func(s *spec) { s.extra = exclude(der.TLV(0x87, []byte{10, 0, 0, 0, 255, 0, 0, 0})) })
	leafUnder("period-ip-constraint-text", ipExclude, der.Seq(der.TLV(0x87, []byte{10, 1, 2, 3})), ipExclude)
}
