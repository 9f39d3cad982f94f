package main

import (
	"crypto"
	"crypto/dsa"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/asn1"
	"encoding/pem"
	"math/big"
	"time"

	"fabric-ops/tools/x509-oracle/internal/der"
)

// Key kinds. Only rsa, p256, p384, p521 and ed25519 can sign TLS handshakes.
const (
	kRSA    = "rsa2048"
	kP256   = "p256"
	kP384   = "p384"
	kP521   = "p521"
	kEd     = "ed25519"
	kDSA    = "dsa"
	kRSAPSS = "rsapss-key"
)

type key struct {
	kind string
	priv crypto.Signer // nil for DSA
	dsa  *dsa.PrivateKey
	spki []byte
}

var (
	oidRSAPSS     = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 1, 10}
	oidSHA256RSA  = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 1, 11}
	oidSHA1RSA    = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 1, 5}
	oidMD5RSA     = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 1, 4}
	oidECDSA256   = asn1.ObjectIdentifier{1, 2, 840, 10045, 4, 3, 2}
	oidECDSA384   = asn1.ObjectIdentifier{1, 2, 840, 10045, 4, 3, 3}
	oidECDSA512   = asn1.ObjectIdentifier{1, 2, 840, 10045, 4, 3, 4}
	oidEd25519    = asn1.ObjectIdentifier{1, 3, 101, 112}
	oidDSA        = asn1.ObjectIdentifier{1, 2, 840, 10040, 4, 1}
	oidDSASHA256  = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 3, 2}
	oidSHA256     = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 2, 1}
	oidMGF1       = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 1, 8}
	oidPrimeField = asn1.ObjectIdentifier{1, 2, 840, 10045, 1, 1}
)

func newKey(kind string) *key {
	k := &key{kind: kind}
	var err error
	switch kind {
	case kRSA, kRSAPSS:
		var r *rsa.PrivateKey
		r, err = rsa.GenerateKey(rand.Reader, 2048)
		k.priv = r
	case kP256:
		k.priv, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	case kP384:
		k.priv, err = ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	case kP521:
		k.priv, err = ecdsa.GenerateKey(elliptic.P521(), rand.Reader)
	case kEd:
		_, k.priv, err = ed25519.GenerateKey(rand.Reader)
	case kDSA:
		d := &dsa.PrivateKey{}
		if err = dsa.GenerateParameters(&d.Parameters, rand.Reader, dsa.L1024N160); err == nil {
			err = dsa.GenerateKey(d, rand.Reader)
		}
		k.dsa = d
	}
	if err != nil {
		panic(err)
	}
	switch kind {
	case kDSA:
		p := k.dsa.Parameters
		k.spki = der.Seq(der.Seq(der.OID(oidDSA), der.Seq(der.BigInt(p.P), der.BigInt(p.Q), der.BigInt(p.G))), der.Bits(der.BigInt(k.dsa.Y)))
	case kRSAPSS:
		k.spki = der.Seq(der.Seq(der.OID(oidRSAPSS)), der.Bits(x509.MarshalPKCS1PublicKey(&k.priv.(*rsa.PrivateKey).PublicKey)))
	default:
		k.spki, err = x509.MarshalPKIXPublicKey(k.priv.Public())
		if err != nil {
			panic(err)
		}
	}
	return k
}

// tlsCapable: the key can sign a TLS handshake (Go's server accepts these leaf key types).
func (k *key) tlsCapable() bool {
	return k.kind == kRSA || k.kind == kP256 || k.kind == kP384 || k.kind == kP521 || k.kind == kEd
}

func (k *key) pkcs8PEM() string {
	pkcs8, err := x509.MarshalPKCS8PrivateKey(k.priv)
	if err != nil {
		panic(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8}))
}

// explicitECSPKI re-encodes a P-256 public key with explicit curve parameters instead of the named-curve OID.
func (k *key) explicitECSPKI() []byte {
	pub := k.priv.Public().(*ecdsa.PublicKey)
	params := pub.Curve.Params()
	point := elliptic.Marshal(pub.Curve, pub.X, pub.Y)
	a := new(big.Int).Sub(params.P, big.NewInt(3))
	pad := func(n *big.Int) []byte { b := make([]byte, 32); n.FillBytes(b); return b }
	base := elliptic.Marshal(pub.Curve, params.Gx, params.Gy)
	ecParams := der.Seq(der.Int(1), der.Seq(der.OID(oidPrimeField), der.BigInt(params.P)), der.Seq(der.Octets(pad(a)), der.Octets(pad(params.B))), der.Octets(base), der.BigInt(params.N), der.Int(1))
	return der.Seq(der.Seq(der.OID(der.OIDECPublic), ecParams), der.Bits(point))
}

// Signature algorithm names used by specs.
const (
	sigDefault   = ""
	sigSHA1RSA   = "sha1-rsa"
	sigMD5RSA    = "md5-rsa"
	sigPSS       = "pss-sha256-salt32"
	sigPSSBad    = "pss-sha256-salt20"
	sigPSSZero   = "pss-sha256-salt0"
	sigECDSA256  = "ecdsa-sha256"
	sigSHA256RSA = "sha256-rsa"
)

func pssAI(salt int64) []byte {
	h := der.Seq(der.OID(oidSHA256), der.Null())
	return der.Seq(der.OID(oidRSAPSS), der.Seq(der.Explicit(0, h), der.Explicit(1, der.Seq(der.OID(oidMGF1), h)), der.Explicit(2, der.Int(salt))))
}

// sigAI returns the AlgorithmIdentifier and a function signing the TBS bytes.
func sigAI(signer *key, alg string) ([]byte, func([]byte) []byte) {
	must := func(b []byte, err error) []byte {
		if err != nil {
			panic(err)
		}
		return b
	}
	rsaSign := func(h crypto.Hash) func([]byte) []byte {
		return func(tbs []byte) []byte {
			return must(rsa.SignPKCS1v15(nil, signer.priv.(*rsa.PrivateKey), h, der.Digest(h, tbs)))
		}
	}
	pssSign := func(salt int) func([]byte) []byte {
		return func(tbs []byte) []byte {
			return must(rsa.SignPSS(rand.Reader, signer.priv.(*rsa.PrivateKey), crypto.SHA256, der.Digest(crypto.SHA256, tbs), &rsa.PSSOptions{SaltLength: salt, Hash: crypto.SHA256}))
		}
	}
	ecSign := func(h crypto.Hash) func([]byte) []byte {
		return func(tbs []byte) []byte {
			return must(ecdsa.SignASN1(rand.Reader, signer.priv.(*ecdsa.PrivateKey), der.Digest(h, tbs)))
		}
	}
	switch alg {
	case sigSHA1RSA:
		return der.Seq(der.OID(oidSHA1RSA), der.Null()), rsaSign(crypto.SHA1)
	case sigMD5RSA:
		return der.Seq(der.OID(oidMD5RSA), der.Null()), rsaSign(crypto.MD5)
	case sigPSS:
		return pssAI(32), pssSign(32)
	case sigPSSBad:
		return pssAI(20), pssSign(20)
	case sigPSSZero:
		return pssAI(0), pssSign(0)
	}
	switch signer.kind {
	case kRSA:
		return der.Seq(der.OID(oidSHA256RSA), der.Null()), rsaSign(crypto.SHA256)
	case kRSAPSS:
		return pssAI(32), pssSign(32)
	case kP256:
		return der.Seq(der.OID(oidECDSA256)), ecSign(crypto.SHA256)
	case kP384:
		return der.Seq(der.OID(oidECDSA384)), ecSign(crypto.SHA384)
	case kP521:
		return der.Seq(der.OID(oidECDSA512)), ecSign(crypto.SHA512)
	case kEd:
		return der.Seq(der.OID(oidEd25519)), func(tbs []byte) []byte { return ed25519.Sign(signer.priv.(ed25519.PrivateKey), tbs) }
	case kDSA:
		return der.Seq(der.OID(oidDSASHA256)), func(tbs []byte) []byte {
			r, s, err := dsa.Sign(rand.Reader, signer.dsa, der.Digest(crypto.SHA256, tbs)[:32])
			if err != nil {
				panic(err)
			}
			return der.Seq(der.BigInt(r), der.BigInt(s))
		}
	}
	panic("no signature algorithm for " + signer.kind)
}

type ext struct {
	oid      asn1.ObjectIdentifier
	critical bool
	value    []byte
}

func (e ext) der() []byte {
	if e.critical {
		return der.Seq(der.OID(e.oid), der.Bool(true), der.Octets(e.value))
	}
	return der.Seq(der.OID(e.oid), der.Octets(e.value))
}

var (
	oidPolicyCons = asn1.ObjectIdentifier{2, 5, 29, 36}
	oidPolicyMap  = asn1.ObjectIdentifier{2, 5, 29, 33}
	oidInhibitAny = asn1.ObjectIdentifier{2, 5, 29, 54}
	oidNetscape   = asn1.ObjectIdentifier{2, 16, 840, 1, 113730, 1, 1}
	oidOCSPNoChk  = asn1.ObjectIdentifier{1, 3, 6, 1, 5, 5, 7, 48, 1, 5}
	oidUnknownExt = asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 55555, 1, 1}
	oidPadding    = asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 55555, 1, 2}

	ekuServer = asn1.ObjectIdentifier{1, 3, 6, 1, 5, 5, 7, 3, 1}
	ekuClient = asn1.ObjectIdentifier{1, 3, 6, 1, 5, 5, 7, 3, 2}
	ekuAny    = asn1.ObjectIdentifier{2, 5, 29, 37, 0}
)

// KeyUsage bit numbers.
const (
	kuDigitalSignature = 0
	kuKeyEncipherment  = 2
	kuCertSign         = 5
	kuCRLSign          = 6
)

// spec describes one certificate. Zero values mean "the ordinary choice" for a CA or a leaf.
type spec struct {
	version   int // 1, 2 or 3 (default 3)
	serial    int64
	subject   []byte
	issuer    []byte // default: the parent's subject
	notBefore time.Time
	notAfter  time.Time
	pub       *key
	spki      []byte // overrides pub.spki
	sigAlg    string
	genTime   bool // validity as GeneralizedTime even before 2050
	// extensions
	ca           bool
	pathLen      int // used only with hasPathLen
	hasPathLen   bool
	noBC         bool
	bcValue      []byte // raw basicConstraints value (malformed ones)
	ku           []int
	kuSet        bool // ku given (possibly empty: KeyUsage with no bits)
	noKU         bool
	eku          []asn1.ObjectIdentifier
	ekuSet       bool   // eku given; empty with ekuSet = no EKU extension
	san          []byte // raw SAN value; nil = default for leaves
	noSAN        bool
	sanCritical  bool
	akid         []byte // overrides the parent's SKID
	noAKID       bool
	noSKID       bool
	skid         []byte // fixed subject key id (a renewed or cross-signed copy keeps its SKID)
	extra        []ext
	noExtensions bool
	// mutations of the encoding
	mutateTBS  func([]byte) []byte
	mutateCert func(tbs, ai, sig []byte) []byte
}

type cert struct {
	der     []byte
	subject []byte
	key     *key
	skid    []byte
}

func (c *cert) pem() string {
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.der}))
}

// issue builds and signs a certificate. parent nil means self-signed by s.pub.
func (g *gen) issue(parent *cert, s spec) *cert {
	if s.version == 0 {
		s.version = 3
	}
	if s.serial == 0 {
		g.serial++
		s.serial = g.serial
	}
	if s.notBefore.IsZero() {
		s.notBefore = g.now.Add(-30 * 24 * time.Hour)
	}
	if s.notAfter.IsZero() {
		s.notAfter = g.now.Add(3 * 365 * 24 * time.Hour)
	}
	signer := s.pub
	issuer := s.subject
	var parentSKID []byte
	if parent != nil {
		signer = parent.key
		issuer = parent.subject
		parentSKID = parent.skid
	}
	if s.issuer != nil {
		issuer = s.issuer
	}
	skid := s.skid
	if skid == nil {
		skid = make([]byte, 20)
		g.rnd.Read(skid)
	}
	var exts [][]byte
	add := func(e ext) { exts = append(exts, e.der()) }
	if !s.noExtensions {
		if !s.noBC {
			switch {
			case s.bcValue != nil:
				add(ext{der.OIDBC, true, s.bcValue})
			case s.ca:
				v := [][]byte{der.Bool(true)}
				if s.hasPathLen {
					v = append(v, der.Int(int64(s.pathLen)))
				}
				add(ext{der.OIDBC, true, der.Seq(v...)})
			}
		}
		if !s.noKU {
			switch {
			case s.kuSet:
				add(ext{der.OIDKU, true, der.BitString(s.ku...)})
			case s.ca:
				add(ext{der.OIDKU, true, der.BitString(kuCertSign, kuCRLSign)})
			default:
				add(ext{der.OIDKU, true, der.BitString(kuDigitalSignature)})
			}
		}
		switch {
		case s.ekuSet && len(s.eku) == 0:
		case s.ekuSet:
			var o [][]byte
			for _, e := range s.eku {
				o = append(o, der.OID(e))
			}
			add(ext{der.OIDEKU, false, der.Seq(o...)})
		case !s.ca:
			add(ext{der.OIDEKU, false, der.Seq(der.OID(ekuClient))})
		}
		if !s.noSKID {
			add(ext{der.OIDSKID, false, der.Octets(skid)})
		}
		if !s.noAKID {
			a := s.akid
			if a == nil {
				a = parentSKID
			}
			if a != nil {
				add(ext{der.OIDAKID, false, der.Seq(der.TLV(0x80, a))})
			}
		}
		if !s.noSAN && (s.san != nil || !s.ca) {
			v := s.san
			if v == nil {
				v = der.Seq(der.TLV(0x82, []byte("client.example.com")))
			}
			add(ext{der.OIDSAN, s.sanCritical, v})
		}
		for _, e := range s.extra {
			add(e)
		}
	}
	spki := s.spki
	if spki == nil {
		spki = s.pub.spki
	}
	ai, sign := sigAI(signer, s.sigAlg)
	parts := [][]byte{}
	if s.version > 1 {
		parts = append(parts, der.Explicit(0, der.Int(int64(s.version-1))))
	}
	validity := der.Seq(der.Time(s.notBefore), der.Time(s.notAfter))
	if s.genTime {
		gt := func(t time.Time) []byte { return der.TLV(0x18, []byte(t.UTC().Format("20060102150405Z"))) }
		validity = der.Seq(gt(s.notBefore), gt(s.notAfter))
	}
	parts = append(parts, der.Int(s.serial), ai, issuer, validity, s.subject, spki)
	if len(exts) > 0 {
		parts = append(parts, der.Explicit(3, der.Seq(exts...)))
	}
	tbs := der.Seq(parts...)
	if s.mutateTBS != nil {
		tbs = s.mutateTBS(tbs)
	}
	sig := sign(tbs)
	var enc []byte
	if s.mutateCert != nil {
		enc = s.mutateCert(tbs, ai, der.Bits(sig))
	} else {
		enc = der.Seq(tbs, ai, der.Bits(sig))
	}
	c := &cert{der: enc, subject: s.subject, key: s.pub, skid: skid}
	if s.noSKID {
		c.skid = nil
	}
	return c
}
