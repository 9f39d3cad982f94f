// Package der is the hand-written DER (and deliberately non-DER) encoding that both the corpus
// generator (the x509-oracle command) and the fuzzer (./fuzz) assemble certificates with, byte by
// byte: they need certificates that x509.CreateCertificate refuses to produce.
package der

import (
	"crypto"
	_ "crypto/md5" // the hashes Digest is asked for, registered with crypto
	_ "crypto/sha1"
	_ "crypto/sha256"
	_ "crypto/sha512"
	"encoding/asn1"
	"math/big"
	"time"
)

// Len is a DER length: short form below 0x80, else the minimal long form.
func Len(n int) []byte {
	if n < 0x80 {
		return []byte{byte(n)}
	}
	var b []byte
	for n > 0 {
		b = append([]byte{byte(n)}, b...)
		n >>= 8
	}
	return append([]byte{0x80 | byte(len(b))}, b...)
}

// TLV is one element: tag, DER length, then the parts as its body.
func TLV(tag byte, parts ...[]byte) []byte {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	out := make([]byte, 0, n+6)
	out = append(out, tag)
	out = append(out, Len(n)...)
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// TLVLong encodes the length in long form with a superfluous leading zero byte: valid BER, not DER.
func TLVLong(tag byte, body []byte) []byte {
	n := len(body)
	out := []byte{tag, 0x84, 0, byte(n >> 16), byte(n >> 8), byte(n)}
	return append(out, body...)
}

func Seq(parts ...[]byte) []byte { return TLV(0x30, parts...) }
func Set(parts ...[]byte) []byte { return TLV(0x31, parts...) }

// Explicit is the context-specific constructed tag [n].
func Explicit(n int, parts ...[]byte) []byte {
	return TLV(0xa0|byte(n), parts...)
}
func Octets(b []byte) []byte { return TLV(0x04, b) }

// Bits is a BIT STRING of whole bytes (no unused bits), as keys and signatures are carried.
func Bits(b []byte) []byte { return TLV(0x03, append([]byte{0}, b...)) }
func Null() []byte         { return []byte{0x05, 0x00} }

func Bool(v bool) []byte {
	if v {
		return []byte{0x01, 0x01, 0xff}
	}
	return []byte{0x01, 0x01, 0x00}
}

func OID(o asn1.ObjectIdentifier) []byte {
	b, err := asn1.Marshal(o)
	if err != nil {
		panic(err)
	}
	return b
}

// OIDArcs encodes an OID whose arcs may exceed int (big arcs): base-128 by hand.
func OIDArcs(arcs ...*big.Int) []byte {
	var body []byte
	first := new(big.Int).Mul(arcs[0], big.NewInt(40))
	first.Add(first, arcs[1])
	all := append([]*big.Int{first}, arcs[2:]...)
	for _, a := range all {
		var enc []byte
		v := new(big.Int).Set(a)
		if v.Sign() == 0 {
			enc = []byte{0}
		}
		for v.Sign() > 0 {
			enc = append([]byte{byte(new(big.Int).And(v, big.NewInt(0x7f)).Int64())}, enc...)
			v.Rsh(v, 7)
		}
		for i := 0; i < len(enc)-1; i++ {
			enc[i] |= 0x80
		}
		body = append(body, enc...)
	}
	return TLV(0x06, body)
}

func Int(n int64) []byte { return BigInt(big.NewInt(n)) }

func BigInt(n *big.Int) []byte {
	b, err := asn1.Marshal(n)
	if err != nil {
		panic(err)
	}
	return b
}

func UTCTime(t time.Time) []byte {
	return TLV(0x17, []byte(t.UTC().Format("060102150405Z")))
}

func GenTime(t time.Time) []byte {
	return TLV(0x18, []byte(t.UTC().Format("20060102150405Z")))
}

// Time is RFC 5280's choice: UTCTime from 1950 to 2049, GeneralizedTime otherwise.
func Time(t time.Time) []byte {
	t = t.UTC()
	if t.Year() >= 1950 && t.Year() < 2050 {
		return UTCTime(t)
	}
	return GenTime(t)
}

// BitString encodes named bits (bit 0 = most significant bit of the first byte) minimally.
func BitString(set ...int) []byte {
	max := -1
	for _, b := range set {
		if b > max {
			max = b
		}
	}
	if max < 0 {
		return []byte{0x03, 0x01, 0x00}
	}
	buf := make([]byte, max/8+1)
	for _, b := range set {
		buf[b/8] |= 0x80 >> (b % 8)
	}
	unused := 7 - max%8
	return TLV(0x03, append([]byte{byte(unused)}, buf...))
}

// Digest is msg hashed with h (MD5, SHA-1 or a SHA-2), as a signature over TBS bytes is made.
func Digest(h crypto.Hash, msg []byte) []byte {
	w := h.New()
	w.Write(msg)
	return w.Sum(nil)
}
