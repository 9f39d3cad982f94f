package main

// Names as the generator writes them; the DER encoders themselves are internal/der, shared with
// the fuzzer.

import (
	"encoding/asn1"

	"fabric-ops/tools/x509-oracle/internal/der"
)

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
	oidEmail = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 1}
)

func rdnName(attrs ...atv) []byte {
	var rdns [][]byte
	for _, a := range attrs {
		rdns = append(rdns, der.Set(der.Seq(der.OID(a.oid), der.TLV(a.tag, a.val))))
	}
	return der.Seq(rdns...)
}

// stdName is the ordinary shape: O as PrintableString, CN as UTF8String.
func stdName(org, cn string) []byte {
	return rdnName(atv{der.OIDO, tagPrintable, []byte(org)}, atv{der.OIDCN, tagUTF8, []byte(cn)})
}
