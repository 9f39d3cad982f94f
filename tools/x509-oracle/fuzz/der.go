package main

// DER building blocks, and a generic TLV tree for mutations at the byte level (length forms, tags)
// that are then re-signed.

import (
	"encoding/asn1"
	"math/big"
	"time"
)

func derLen(n int) []byte {
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

func tlv(tag byte, parts ...[]byte) []byte {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	out := make([]byte, 0, n+6)
	out = append(out, tag)
	out = append(out, derLen(n)...)
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func seq(parts ...[]byte) []byte { return tlv(0x30, parts...) }
func set(parts ...[]byte) []byte { return tlv(0x31, parts...) }
func explicit(n int, parts ...[]byte) []byte {
	return tlv(0xa0|byte(n), parts...)
}
func octets(b []byte) []byte { return tlv(0x04, b) }
func bitsOf(b []byte) []byte { return tlv(0x03, append([]byte{0}, b...)) }
func null() []byte           { return []byte{0x05, 0x00} }

func boolean(v bool) []byte {
	if v {
		return []byte{0x01, 0x01, 0xff}
	}
	return []byte{0x01, 0x01, 0x00}
}

func oid(o asn1.ObjectIdentifier) []byte {
	b, err := asn1.Marshal(o)
	if err != nil {
		panic(err)
	}
	return b
}

// oidArcs encodes an OID whose arcs may exceed int (big arcs): base-128 by hand.
func oidArcs(arcs ...*big.Int) []byte {
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
	return tlv(0x06, body)
}

func integer(n int64) []byte { return bigInt(big.NewInt(n)) }

func bigInt(n *big.Int) []byte {
	b, err := asn1.Marshal(n)
	if err != nil {
		panic(err)
	}
	return b
}

func utcTime(t time.Time) []byte {
	return tlv(0x17, []byte(t.UTC().Format("060102150405Z")))
}

func genTime(t time.Time) []byte {
	return tlv(0x18, []byte(t.UTC().Format("20060102150405Z")))
}

// derTime is RFC 5280's choice: UTCTime from 1950 to 2049, GeneralizedTime otherwise.
func derTime(t time.Time) []byte {
	t = t.UTC()
	if t.Year() >= 1950 && t.Year() < 2050 {
		return utcTime(t)
	}
	return genTime(t)
}

// bitString encodes named bits (bit 0 = most significant bit of the first byte) minimally.
func bitString(set ...int) []byte {
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
	return tlv(0x03, append([]byte{byte(unused)}, buf...))
}

// node is one TLV of a parsed DER tree. Constructed nodes hold children; primitive ones their bytes.
type node struct {
	tag      byte
	kids     []*node
	val      []byte
	cons     bool
	longLen  bool // encode the length in a non-minimal long form (BER, not DER)
	indefLen bool // constructed only: indefinite length with end-of-contents (BER)
}

// parseTree reads one DER element (short and long lengths, single-byte tags); ok is false when
// the bytes are not such an element with nothing after it.
func parseTree(b []byte) (*node, bool) {
	n, rest, ok := parseNode(b, 0)
	return n, ok && len(rest) == 0
}

func parseNode(b []byte, depth int) (*node, []byte, bool) {
	if len(b) < 2 || depth > 40 || b[0]&0x1f == 0x1f {
		return nil, nil, false
	}
	tag := b[0]
	l := int(b[1])
	off := 2
	if l >= 0x80 {
		k := l & 0x7f
		if k == 0 || k > 3 || len(b) < 2+k {
			return nil, nil, false
		}
		l = 0
		for i := 0; i < k; i++ {
			l = l<<8 | int(b[2+i])
		}
		off += k
	}
	if len(b)-off < l {
		return nil, nil, false
	}
	body := b[off : off+l]
	n := &node{tag: tag, cons: tag&0x20 != 0}
	if n.cons {
		for len(body) > 0 {
			k, rest, ok := parseNode(body, depth+1)
			if !ok {
				return nil, nil, false
			}
			n.kids = append(n.kids, k)
			body = rest
		}
	} else {
		n.val = body
	}
	return n, b[off+l:], true
}

func (n *node) encode() []byte {
	var body []byte
	if n.cons {
		for _, k := range n.kids {
			body = append(body, k.encode()...)
		}
	} else {
		body = n.val
	}
	if n.indefLen && n.cons {
		out := append([]byte{n.tag, 0x80}, body...)
		return append(out, 0, 0)
	}
	if n.longLen {
		l := len(body)
		out := []byte{n.tag, 0x83, byte(l >> 16), byte(l >> 8), byte(l)}
		return append(out, body...)
	}
	return tlv(n.tag, body)
}

// walk lists every node, depth first.
func (n *node) walk(f func(*node)) {
	f(n)
	for _, k := range n.kids {
		k.walk(f)
	}
}
