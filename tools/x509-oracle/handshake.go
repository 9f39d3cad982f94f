package main

import (
	"crypto"
	"crypto/rsa"
	"errors"
)

// clientKeyRefusal is what crypto/tls's check of the client's CertificateVerify says about the
// leaf's key itself, whatever the signature: the server verifies it with rsa.VerifyPSS (TLS 1.3)
// or rsa.VerifyPKCS1v15 / rsa.VerifyPSS (TLS 1.2), and both refuse, before any arithmetic, a key
// under 1,024 bits, an even modulus and an exponent that is even, under 2 or over 2^31 - 1
// (crypto/rsa's checkPublicKeySize and checkPublicKey). A key they accept fails this dummy
// signature with rsa.ErrVerification only; a real client's signature would then be checked, and
// the oracle takes it as good (the corpus's leaf keys sign correctly or cannot sign at all).
func clientKeyRefusal(pub any) error {
	k, ok := pub.(*rsa.PublicKey)
	if !ok {
		return nil
	}
	digest := make([]byte, 32)
	sig := make([]byte, (k.N.BitLen()+7)/8)
	for _, verify := range []func() error{
		func() error { return rsa.VerifyPSS(k, crypto.SHA256, digest, sig, nil) },
		func() error { return rsa.VerifyPKCS1v15(k, crypto.SHA256, digest, sig) },
	} {
		if err := verify(); err != nil && !errors.Is(err, rsa.ErrVerification) {
			return err
		}
	}
	return nil
}
