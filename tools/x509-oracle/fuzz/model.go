package main

// The certificate model the mutations edit: every field is DER (or a structured list that is
// encoded into DER), so a mutation works at the DER level while the chain stays coherent: a CA's
// subject and key feed its children's issuer field, key identifiers and signatures unless a
// mutation overrides them on purpose.

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/asn1"
	"time"

	"fabric-ops/tools/x509-oracle/internal/der"
)

type attr struct {
	oid asn1.ObjectIdentifier
	tag byte
	val []byte
}

// gname is one GeneralName: its context tag (0x80|n primitive, 0xa0|n constructed) and body.
type gname struct {
	tag byte
	val []byte
}

func (g gname) der() []byte { return der.TLV(g.tag, g.val) }

type subtree struct {
	base gname
	min  []byte // raw [0] minimum, nil = absent
	max  []byte // raw [1] maximum
}

type ncModel struct {
	permitted, excluded       []subtree
	permittedSet, excludedSet bool // present even when empty
}

type ext struct {
	oid      asn1.ObjectIdentifier
	critical bool
	critRaw  []byte // a raw BOOLEAN (e.g. an explicit FALSE), overriding critical
	value    []byte // raw value; nil means encode san or nc
	san      []gname
	nc       *ncModel
}

var (
	oidST     = asn1.ObjectIdentifier{2, 5, 4, 8}
	oidL      = asn1.ObjectIdentifier{2, 5, 4, 7}
	oidEmailA = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 1}

	ekuServer = asn1.ObjectIdentifier{1, 3, 6, 1, 5, 5, 7, 3, 1}
	ekuClient = asn1.ObjectIdentifier{1, 3, 6, 1, 5, 5, 7, 3, 2}
	ekuAny    = asn1.ObjectIdentifier{2, 5, 29, 37, 0}
)

func (e *ext) encodeValue() []byte {
	if e.value != nil {
		return e.value
	}
	if e.nc != nil {
		enc := func(list []subtree) []byte {
			var parts [][]byte
			for _, s := range list {
				body := [][]byte{s.base.der()}
				if s.min != nil {
					body = append(body, s.min)
				}
				if s.max != nil {
					body = append(body, s.max)
				}
				parts = append(parts, der.Seq(body...))
			}
			return concat(parts...)
		}
		var parts [][]byte
		if len(e.nc.permitted) > 0 || e.nc.permittedSet {
			parts = append(parts, der.TLV(0xa0, enc(e.nc.permitted)))
		}
		if len(e.nc.excluded) > 0 || e.nc.excludedSet {
			parts = append(parts, der.TLV(0xa1, enc(e.nc.excluded)))
		}
		return der.Seq(parts...)
	}
	var parts [][]byte
	for _, g := range e.san {
		parts = append(parts, g.der())
	}
	return der.Seq(parts...)
}

func (e *ext) der() []byte {
	crit := []byte(nil)
	if e.critRaw != nil {
		crit = e.critRaw
	} else if e.critical {
		crit = der.Bool(true)
	}
	return der.Seq(der.OID(e.oid), crit, der.Octets(e.encodeValue()))
}

func concat(parts ...[]byte) []byte {
	var out []byte
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// cert is one certificate of a chain: chain[0] is the leaf, the last one the root (trusted, in
// the pool, not sent unless a mutation sends it).
type cert struct {
	version     int    // 0 = v1 (field omitted), 1 = v2, 2 = v3; see versionRaw
	versionRaw  []byte // overrides the version field ([0] EXPLICIT INTEGER) when non-nil
	serial      []byte
	subject     []attr
	subjectRaw  []byte // overrides the encoded subject
	issuerRaw   []byte // overrides the issuer (default: the issuer's subject)
	notBefore   []byte
	notAfter    []byte
	key         *key
	exts        []*ext
	noExts      bool   // omit the [3] field even when exts is empty
	emptyExts   bool   // write [3] with an empty SEQUENCE
	uids        []byte // raw issuerUniqueID/subjectUniqueID fields
	sigAlg      string // "" = the issuer key's natural algorithm
	outerAlg    string // "" = the same as the inner one
	akidAuto    bool   // fill the AKID from the issuer's key
	skidAuto    bool   // fill the SKID from the own key
	tbsTree     func(*node)
	tbsBytes    func([]byte) []byte
	outerBytes  func([]byte) []byte
	badSig      bool
	staleSigner *key // sign with this key instead of the issuer's (a key swap without re-signing)
}

func (c *cert) subjectDER() []byte {
	if c.subjectRaw != nil {
		return c.subjectRaw
	}
	var rdns [][]byte
	for _, a := range c.subject {
		rdns = append(rdns, der.Set(der.Seq(der.OID(a.oid), der.TLV(a.tag, a.val))))
	}
	return der.Seq(rdns...)
}

func (c *cert) ext(o asn1.ObjectIdentifier) *ext {
	for _, e := range c.exts {
		if e.oid.Equal(o) {
			return e
		}
	}
	return nil
}

func (c *cert) setExt(e *ext) {
	for i, x := range c.exts {
		if x.oid.Equal(e.oid) {
			c.exts[i] = e
			return
		}
	}
	c.exts = append(c.exts, e)
}

func (c *cert) dropExt(o asn1.ObjectIdentifier) {
	out := c.exts[:0]
	for _, e := range c.exts {
		if !e.oid.Equal(o) {
			out = append(out, e)
		}
	}
	c.exts = out
}

func (c *cert) clone() *cert {
	d := *c
	d.subject = append([]attr(nil), c.subject...)
	d.exts = make([]*ext, len(c.exts))
	for i, e := range c.exts {
		x := *e
		x.san = append([]gname(nil), e.san...)
		if e.nc != nil {
			nc := *e.nc
			nc.permitted = append([]subtree(nil), e.nc.permitted...)
			nc.excluded = append([]subtree(nil), e.nc.excluded...)
			x.nc = &nc
		}
		d.exts[i] = &x
	}
	return &d
}

// Signature algorithms by name.
var sigAlgs = map[string]struct {
	oid    asn1.ObjectIdentifier
	null   bool
	hash   crypto.Hash
	family string
}{
	"ecdsa-sha256": {asn1.ObjectIdentifier{1, 2, 840, 10045, 4, 3, 2}, false, crypto.SHA256, "ec"},
	"ecdsa-sha384": {asn1.ObjectIdentifier{1, 2, 840, 10045, 4, 3, 3}, false, crypto.SHA384, "ec"},
	"ecdsa-sha512": {asn1.ObjectIdentifier{1, 2, 840, 10045, 4, 3, 4}, false, crypto.SHA512, "ec"},
	"ecdsa-sha1":   {asn1.ObjectIdentifier{1, 2, 840, 10045, 4, 1}, false, crypto.SHA1, "ec"},
	"ecdsa-null":   {asn1.ObjectIdentifier{1, 2, 840, 10045, 4, 3, 2}, true, crypto.SHA256, "ec"},
	"rsa-sha256":   {asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 1, 11}, true, crypto.SHA256, "rsa"},
	"rsa-sha384":   {asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 1, 12}, true, crypto.SHA384, "rsa"},
	"rsa-sha512":   {asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 1, 13}, true, crypto.SHA512, "rsa"},
	"rsa-sha1":     {asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 1, 5}, true, crypto.SHA1, "rsa"},
	"rsa-md5":      {asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 1, 4}, true, crypto.MD5, "rsa"},
	"rsa-nonull":   {asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 1, 11}, false, crypto.SHA256, "rsa"},
	"rsa-pss":      {asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 1, 10}, false, crypto.SHA256, "pss"},
	"ed25519":      {asn1.ObjectIdentifier{1, 3, 101, 112}, false, 0, "ed25519"},
	"ed25519-null": {asn1.ObjectIdentifier{1, 3, 101, 112}, true, 0, "ed25519"},
}

func naturalAlg(k *key) string {
	switch k.kind {
	case "ec":
		switch k.bits {
		case 384:
			return "ecdsa-sha384"
		case 521:
			return "ecdsa-sha512"
		}
		return "ecdsa-sha256"
	case "ed25519":
		return "ed25519"
	}
	return "rsa-sha256"
}

func algID(name string) []byte {
	a := sigAlgs[name]
	if a.family == "pss" {
		h := der.Seq(der.OID(asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 2, 1}), der.Null())
		mgf := der.Seq(der.OID(asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 1, 8}), h)
		return der.Seq(der.OID(a.oid), der.Seq(der.Explicit(0, h), der.Explicit(1, mgf), der.Explicit(2, der.Int(32))))
	}
	if a.null {
		return der.Seq(der.OID(a.oid), der.Null())
	}
	return der.Seq(der.OID(a.oid))
}

// sign signs tbs with k as alg asks; a key that cannot make that signature (wrong family, no
// private half) yields a well-formed signature value that does not verify.
func sign(k *key, alg string, tbs []byte) []byte {
	a := sigAlgs[alg]
	if k == nil || k.priv == nil {
		return make([]byte, 64)
	}
	var sig []byte
	var err error
	switch p := k.priv.(type) {
	case *ecdsa.PrivateKey:
		if a.family != "ec" {
			return make([]byte, 72)
		}
		// A nil random source: RFC 6979 deterministic signatures.
		sig, err = p.Sign(nil, der.Digest(a.hash, tbs), a.hash)
	case *rsa.PrivateKey:
		switch a.family {
		case "rsa":
			sig, err = rsa.SignPKCS1v15(nil, p, a.hash, der.Digest(a.hash, tbs))
		case "pss":
			sig, err = rsa.SignPSS(zeroReader{}, p, crypto.SHA256, der.Digest(crypto.SHA256, tbs), &rsa.PSSOptions{SaltLength: 32, Hash: crypto.SHA256})
		default:
			return make([]byte, p.Size())
		}
		if err != nil {
			// a key mutated too small for the digest cannot sign it: a value that does not verify
			return make([]byte, p.Size())
		}
	case ed25519.PrivateKey:
		if a.family != "ed25519" {
			return make([]byte, 64)
		}
		sig = ed25519.Sign(p, tbs)
	}
	if err != nil {
		panic(err)
	}
	return sig
}

// sigCache holds signatures already made: most certificates of a case are a seed's, unchanged,
// and RSA signing dominates the generation time otherwise. Bounded: cleared when full.
var sigCache = map[[32]byte][]byte{}

func cachedSign(k *key, alg string, tbs []byte) []byte {
	name := "nil"
	if k != nil {
		name = k.name
	}
	h := sha256.New()
	h.Write([]byte(name + "|" + alg + "|"))
	h.Write(tbs)
	var id [32]byte
	copy(id[:], h.Sum(nil))
	if sig, ok := sigCache[id]; ok {
		return append([]byte(nil), sig...)
	}
	if len(sigCache) > 200000 {
		clear(sigCache)
	}
	sig := sign(k, alg, tbs)
	sigCache[id] = sig
	return append([]byte(nil), sig...)
}

type zeroReader struct{}

func (zeroReader) Read(b []byte) (int, error) {
	clear(b)
	return len(b), nil
}

// tbsDER encodes c's TBSCertificate with the issuer's subject and key where c does not override them.
func (c *cert) tbsDER(issuer *cert, alg string) []byte {
	var version []byte
	switch {
	case c.versionRaw != nil:
		version = c.versionRaw
	case c.version > 0:
		version = der.Explicit(0, der.Int(int64(c.version)))
	}
	issuerName := c.issuerRaw
	if issuerName == nil {
		issuerName = issuer.subjectDER()
	}
	var extsField []byte
	if !c.noExts && (len(c.exts) > 0 || c.emptyExts) {
		var parts [][]byte
		for _, e := range c.exts {
			switch {
			case e.oid.Equal(der.OIDAKID) && c.akidAuto && e.value == nil:
				parts = append(parts, (&ext{oid: der.OIDAKID, critical: e.critical, critRaw: e.critRaw, value: der.Seq(der.TLV(0x80, keyID(issuer.key)))}).der())
			case e.oid.Equal(der.OIDSKID) && c.skidAuto && e.value == nil:
				parts = append(parts, (&ext{oid: der.OIDSKID, critical: e.critical, critRaw: e.critRaw, value: der.Octets(keyID(c.key))}).der())
			default:
				parts = append(parts, e.der())
			}
		}
		extsField = der.Explicit(3, der.Seq(parts...))
	}
	return der.Seq(version, c.serial, algID(alg), issuerName, der.Seq(c.notBefore, c.notAfter), c.subjectDER(), c.key.spki, c.uids, extsField)
}

// build encodes chain (leaf first, root last; each certificate issued by the next, the root by
// itself) into DER, signing every TBS with its issuer's current key.
func build(chain []*cert) [][]byte {
	out := make([][]byte, len(chain))
	for i := len(chain) - 1; i >= 0; i-- {
		c := chain[i]
		issuer := c
		if i+1 < len(chain) {
			issuer = chain[i+1]
		}
		alg := c.sigAlg
		if alg == "" {
			alg = naturalAlg(issuer.key)
		}
		tbs := c.tbsDER(issuer, alg)
		if c.tbsTree != nil {
			if t, ok := parseTree(tbs); ok {
				c.tbsTree(t)
				tbs = t.encode()
			}
		}
		if c.tbsBytes != nil {
			tbs = c.tbsBytes(tbs)
		}
		signer := issuer.key
		if c.staleSigner != nil {
			signer = c.staleSigner
		}
		sig := cachedSign(signer, alg, tbs)
		if c.badSig {
			sig[len(sig)/2] ^= 0x01
		}
		outer := alg
		if c.outerAlg != "" {
			outer = c.outerAlg
		}
		enc := der.Seq(tbs, algID(outer), der.Bits(sig))
		if c.outerBytes != nil {
			enc = c.outerBytes(enc)
		}
		out[i] = enc
	}
	return out
}

func dayTime(base time.Time, days int) time.Time {
	return base.Add(time.Duration(days) * 24 * time.Hour)
}
