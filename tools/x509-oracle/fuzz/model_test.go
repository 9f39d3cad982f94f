package main

import (
	"math/rand/v2"
	"testing"
)

// A mutation may give a certificate an RSA key too small for its signature algorithm's digest
// (512 bits cannot hold a SHA-512 DigestInfo): the case must still be generated, with a
// signature value that does not verify, not stop the whole run.
func TestSignWithAKeyTooSmallForTheDigest(t *testing.T) {
	k := rsaKey(rand.New(rand.NewPCG(1, 2)), 512)
	for _, alg := range []string{"rsa-sha512", "rsa-sha256"} {
		sig := sign(k, alg, []byte("to be signed"))
		if len(sig) != 64 {
			t.Fatalf("%s: signature of %d bytes, want 64", alg, len(sig))
		}
	}
}
