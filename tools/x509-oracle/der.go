package main

// Hand-written DER (and deliberately non-DER) encoding: the generator needs certificates that
// x509.CreateCertificate refuses to produce, so every certificate is assembled here byte by byte.

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
	var body []byte
	for _, p := range parts {
		body = append(body, p...)
	}
	out := append([]byte{tag}, derLen(len(body))...)
	return append(out, body...)
}

// tlvLong encodes the length in long form with a superfluous leading zero byte: valid BER, not DER.
func tlvLong(tag byte, body []byte) []byte {
	n := len(body)
	out := []byte{tag, 0x84, 0, byte(n >> 16), byte(n >> 8), byte(n)}
	return append(out, body...)
}

func seq(parts ...[]byte) []byte { return tlv(0x30, parts...) }
func set(parts ...[]byte) []byte { return tlv(0x31, parts...) }
func explicit(n int, parts ...[]byte) []byte {
	return tlv(0xa0|byte(n), parts...)
}
func octets(b []byte) []byte { return tlv(0x04, b) }
func bits(b []byte) []byte   { return tlv(0x03, append([]byte{0}, b...)) }
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

func integer(n int64) []byte { return bigInt(big.NewInt(n)) }

func bigInt(n *big.Int) []byte {
	b, err := asn1.Marshal(n)
	if err != nil {
		panic(err)
	}
	return b
}

func derTime(t time.Time) []byte {
	t = t.UTC()
	if t.Year() >= 1950 && t.Year() < 2050 {
		return tlv(0x17, []byte(t.Format("060102150405Z")))
	}
	return tlv(0x18, []byte(t.Format("20060102150405Z")))
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

// String tags for names.
const (
	tagUTF8      = 0x0c
	tagPrintable = 0x13
	tagIA5       = 0x16
	tagBMP       = 0x1e
)

type atv struct {
	oid asn1.ObjectIdentifier
	tag byte
	val []byte
}

var (
	oidCN    = asn1.ObjectIdentifier{2, 5, 4, 3}
	oidO     = asn1.ObjectIdentifier{2, 5, 4, 10}
	oidOU    = asn1.ObjectIdentifier{2, 5, 4, 11}
	oidC     = asn1.ObjectIdentifier{2, 5, 4, 6}
	oidEmail = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 1}
)

func rdnName(attrs ...atv) []byte {
	var rdns [][]byte
	for _, a := range attrs {
		rdns = append(rdns, set(seq(oid(a.oid), tlv(a.tag, a.val))))
	}
	return seq(rdns...)
}

// stdName is the ordinary shape: O as PrintableString, CN as UTF8String.
func stdName(org, cn string) []byte {
	return rdnName(atv{oidO, tagPrintable, []byte(org)}, atv{oidCN, tagUTF8, []byte(cn)})
}
