package main

// Keys, made deterministically from a fixed seed (Go 1.26's GenerateKey functions ignore their
// random source), so that a case index regenerates the same bytes on every run and machine.

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/asn1"
	"math/big"
	"math/rand/v2"

	"fabric-ops/tools/x509-oracle/internal/der"
)

// key is a public key as a certificate carries it, with its private half when the fuzzer can
// sign with it (fake RSA moduli and foreign algorithms cannot).
type key struct {
	name string // e.g. "p256", "rsa2048", "rsa8193-fake"
	kind string // "ec", "rsa", "ed25519", "other"
	bits int
	priv crypto.Signer
	spki []byte
}

var ()

type keyRing struct {
	byName map[string]*key
	names  []string // signing-capable keys
	fakes  []string // public keys only
}

func detReader(r *rand.Rand) func([]byte) {
	return func(b []byte) {
		for i := range b {
			b[i] = byte(r.Uint32())
		}
	}
}

func ecKey(r *rand.Rand, name string, curve elliptic.Curve, size int) *key {
	fill := detReader(r)
	for {
		b := make([]byte, size)
		fill(b)
		priv, err := ecdsa.ParseRawPrivateKey(curve, b)
		if err != nil {
			continue
		}
		spki, err := x509.MarshalPKIXPublicKey(&priv.PublicKey)
		if err != nil {
			panic(err)
		}
		return &key{name: name, kind: "ec", bits: curve.Params().BitSize, priv: priv, spki: spki}
	}
}

func prime(r *rand.Rand, bits int) *big.Int {
	fill := detReader(r)
	buf := make([]byte, (bits+7)/8)
	for {
		fill(buf)
		buf[0] |= 0xc0 >> ((8 - bits%8) % 8)
		if bits%8 != 0 {
			buf[0] &= byte(0xff >> (8 - bits%8))
			buf[0] |= byte(0x3 << (bits%8 - 2))
		}
		buf[len(buf)-1] |= 1
		p := new(big.Int).SetBytes(buf)
		if p.BitLen() != bits {
			continue
		}
		if new(big.Int).Mod(p, big.NewInt(65537)).Int64() == 1 {
			continue
		}
		if p.ProbablyPrime(10) {
			return p
		}
	}
}

func rsaKey(r *rand.Rand, bits int) *key {
	e := big.NewInt(65537)
	for {
		p, q := prime(r, bits/2), prime(r, bits-bits/2)
		n := new(big.Int).Mul(p, q)
		if n.BitLen() != bits || p.Cmp(q) == 0 {
			continue
		}
		one := big.NewInt(1)
		phi := new(big.Int).Mul(new(big.Int).Sub(p, one), new(big.Int).Sub(q, one))
		d := new(big.Int).ModInverse(e, phi)
		if d == nil {
			continue
		}
		priv := &rsa.PrivateKey{PublicKey: rsa.PublicKey{N: n, E: 65537}, D: d, Primes: []*big.Int{p, q}}
		priv.Precompute()
		return &key{name: "rsa" + itoa(bits), kind: "rsa", bits: bits, priv: priv, spki: rsaSPKI(n, big.NewInt(65537))}
	}
}

func rsaSPKI(n, e *big.Int) []byte {
	return der.Seq(der.Seq(der.OID(der.OIDRSA), der.Null()), der.Bits(der.Seq(der.BigInt(n), der.BigInt(e))))
}

// fakeRSA is an RSA public key of exactly bits bits and exponent e that nobody can sign with:
// enough for a leaf (a client-certificate check never verifies with the leaf's key).
func fakeRSA(r *rand.Rand, bits int, e *big.Int, name string) *key {
	buf := make([]byte, (bits+7)/8)
	detReader(r)(buf)
	n := new(big.Int).SetBytes(buf)
	n.SetBit(n, bits-1, 1)
	for i := bits; i < len(buf)*8; i++ {
		n.SetBit(n, i, 0)
	}
	n.SetBit(n, 0, 1)
	return &key{name: name, kind: "rsa", bits: bits, spki: rsaSPKI(n, e)}
}

func newKeyRing() *keyRing {
	r := rand.New(rand.NewPCG(0x5eed, 0x6b657973))
	kr := &keyRing{byName: map[string]*key{}}
	add := func(k *key, signs bool) {
		kr.byName[k.name] = k
		if signs {
			kr.names = append(kr.names, k.name)
		} else {
			kr.fakes = append(kr.fakes, k.name)
		}
	}
	// Seed keys: each seed chain has keys of its own so that no two seeds' CAs share a key.
	for i := 0; i < 8; i++ {
		k := ecKey(r, "p256-"+itoa(i), elliptic.P256(), 32)
		add(k, i >= 6)
	}
	for i := 0; i < 2; i++ {
		add(ecKey(r, "p384-"+itoa(i), elliptic.P384(), 48), i == 1)
	}
	add(ecKey(r, "p521", elliptic.P521(), 66), true)
	add(ecKey(r, "p224", elliptic.P224(), 28), true)
	for i := 0; i < 3; i++ {
		k := rsaKey(r, 2048)
		k.name += "-" + itoa(len(kr.byName))
		add(k, i == 2)
	}
	for _, bits := range []int{512, 768, 1024} {
		add(rsaKey(r, bits), true)
	}
	seed := make([]byte, ed25519.SeedSize)
	detReader(r)(seed)
	edPriv := ed25519.NewKeyFromSeed(seed)
	edSPKI, _ := x509.MarshalPKIXPublicKey(edPriv.Public())
	add(&key{name: "ed25519", kind: "ed25519", bits: 256, priv: edPriv, spki: edSPKI}, true)
	f4 := big.NewInt(65537)
	for _, bits := range []int{512, 1023, 1024, 2048, 4096, 8192, 8193, 12288, 16384} {
		add(fakeRSA(r, bits, f4, "rsa"+itoa(bits)+"-fake"), false)
	}
	for _, e := range []int64{1, 2, 3, 65536, 1<<31 - 1, 1 << 31, 1<<32 + 1, 0, -65537} {
		add(fakeRSA(r, 2048, big.NewInt(e), "rsa2048-e"+itoa(int(e))+"-fake"), false)
	}
	// Public keys Go parses as something else or not at all.
	point := make([]byte, 64)
	detReader(r)(point)
	others := map[string][]byte{
		"secp256k1":        der.Seq(der.Seq(der.OID(der.OIDECPublic), der.OID(asn1.ObjectIdentifier{1, 3, 132, 0, 10})), der.Bits(append([]byte{4}, point...))),
		"ec-null-params":   der.Seq(der.Seq(der.OID(der.OIDECPublic), der.Null()), der.Bits(append([]byte{4}, point...))),
		"p256-off-curve":   der.Seq(der.Seq(der.OID(der.OIDECPublic), der.OID(asn1.ObjectIdentifier{1, 2, 840, 10045, 3, 1, 7})), der.Bits(append([]byte{4}, point...))),
		"x25519":           der.Seq(der.Seq(der.OID(asn1.ObjectIdentifier{1, 3, 101, 110})), der.Bits(point[:32])),
		"ed25519-short":    der.Seq(der.Seq(der.OID(asn1.ObjectIdentifier{1, 3, 101, 112})), der.Bits(point[:31])),
		"rsa-no-null":      der.Seq(der.Seq(der.OID(der.OIDRSA)), der.Bits(der.Seq(der.BigInt(new(big.Int).SetBytes(append([]byte{0xc1}, point...))), der.Int(65537)))),
		"unknown-alg":      der.Seq(der.Seq(der.OID(asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 55555, 9})), der.Bits(point)),
		"rsa-bits-unused1": der.Seq(der.Seq(der.OID(der.OIDRSA), der.Null()), der.TLV(0x03, append([]byte{1}, der.Seq(der.Int(3), der.Int(3))...))),
	}
	for _, name := range []string{"secp256k1", "ec-null-params", "p256-off-curve", "x25519", "ed25519-short", "rsa-no-null", "unknown-alg", "rsa-bits-unused1"} {
		add(&key{name: name, kind: "other", spki: others[name]}, false)
	}
	return kr
}

func keyID(k *key) []byte {
	s := sha256.Sum256(k.spki)
	return s[:20]
}

func itoa(i int) string { return big.NewInt(int64(i)).String() }
