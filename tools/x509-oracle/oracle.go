package main

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// maxHandshakeCertificateMsg is crypto/tls's limit on the body of a Certificate handshake
// message (common.go, Go 1.26; every other handshake message keeps the 65,536-byte maxHandshake).
const maxHandshakeCertificateMsg = 262144

// maxRSAKeySize is crypto/tls's limit on an RSA key in any certificate the peer sends
// (checkKeySize, GODEBUG tlsmaxrsasize unset).
const maxRSAKeySize = 8192

type verdict struct {
	ID     string `json:"id"`
	Class  string `json:"class"`
	Admit  bool   `json:"admit"`
	Reason string `json:"reason"`
	// Bytes12 and Bytes13: the body of the client's Certificate handshake message as TLS 1.2 and
	// TLS 1.3 encode this list.
	Bytes12 int `json:"bytes12"`
	Bytes13 int `json:"bytes13"`
}

func loadPool(dir string) (*x509.CertPool, error) {
	files, err := filepath.Glob(filepath.Join(dir, "ca-*.pem"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	pool := x509.NewCertPool()
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		// What Fabric does with each client CA file: certificates Go cannot parse are skipped.
		pool.AppendCertsFromPEM(data)
	}
	return pool, nil
}

func runOracle(corpus string, w io.Writer) error {
	// The decision must not depend on the caller's GODEBUG (x509sha1=1 would admit SHA-1).
	os.Unsetenv("GODEBUG")
	f, err := os.Open(filepath.Join(corpus, "cases.jsonl"))
	if err != nil {
		return err
	}
	defer f.Close()
	pools := map[string]*x509.CertPool{}
	out := bufio.NewWriter(w)
	enc := json.NewEncoder(out)
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var c caseOut
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			return err
		}
		pool, ok := pools[c.Pool]
		if !ok {
			pool, err = loadPool(filepath.Join(corpus, "pools", c.Pool))
			if err != nil {
				return err
			}
			pools[c.Pool] = pool
		}
		v, err := decide(c, pool)
		if err != nil {
			return fmt.Errorf("case %s: %w", c.ID, err)
		}
		if err := enc.Encode(v); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return out.Flush()
}

// decide follows crypto/tls (Go 1.26) for a server with ClientAuth RequireAndVerifyClientCert:
// readHandshake's size limit, processCertsFromClient's parsing of every certificate (and its
// RSA key-size limit), Verify with
// the client CAs as roots and the rest of the list as intermediates, then the leaf key type.
func decide(c caseOut, pool *x509.CertPool) (verdict, error) {
	v := verdict{ID: c.ID, Class: c.Class}
	at, err := time.Parse(time.RFC3339, c.Time)
	if err != nil {
		return v, err
	}
	ders := make([][]byte, len(c.Chain))
	v.Bytes12, v.Bytes13 = 3, 4
	for i, b := range c.Chain {
		ders[i], err = base64.StdEncoding.DecodeString(b)
		if err != nil {
			return v, err
		}
		v.Bytes12 += 3 + len(ders[i])
		v.Bytes13 += 3 + len(ders[i]) + 2
	}
	refuse := func(format string, args ...any) (verdict, error) {
		v.Reason = fmt.Sprintf(format, args...)
		return v, nil
	}
	if v.Bytes12 > maxHandshakeCertificateMsg || v.Bytes13 > maxHandshakeCertificateMsg {
		// crypto/tls readHandshake's text for the TLS 1.3 encoding, the larger (over the limit
		// whenever the TLS 1.2 one is); bytes12 says whether TLS 1.2 is refused too.
		return refuse("tls: handshake message of length %d bytes exceeds maximum of %d bytes", v.Bytes13, maxHandshakeCertificateMsg)
	}
	if len(ders) == 0 {
		return refuse("tls: client didn't provide a certificate")
	}
	certs := make([]*x509.Certificate, len(ders))
	for i, der := range ders {
		certs[i], err = x509.ParseCertificate(der)
		if err != nil {
			return refuse("tls: failed to parse client certificate: %v", err)
		}
		if certs[i].PublicKeyAlgorithm == x509.RSA {
			if n := certs[i].PublicKey.(*rsa.PublicKey).N.BitLen(); n > maxRSAKeySize {
				return refuse("tls: client sent certificate containing RSA key larger than %d bits", maxRSAKeySize)
			}
		}
	}
	opts := x509.VerifyOptions{
		Roots:         pool,
		CurrentTime:   at,
		Intermediates: x509.NewCertPool(),
		KeyUsages:     []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	for _, cert := range certs[1:] {
		opts.Intermediates.AddCert(cert)
	}
	if _, err := certs[0].Verify(opts); err != nil {
		// crypto/tls's own error type, so the text is the running Go's.
		return refuse("%s", (&tls.CertificateVerificationError{UnverifiedCertificates: certs, Err: err}).Error())
	}
	switch certs[0].PublicKey.(type) {
	case *ecdsa.PublicKey, *rsa.PublicKey, ed25519.PublicKey:
	default:
		return refuse("tls: client certificate contains an unsupported public key of type %T", certs[0].PublicKey)
	}
	if err := clientKeyRefusal(certs[0].PublicKey); err != nil {
		return refuse("tls: invalid signature by the client certificate: %v", err)
	}
	v.Admit = true
	v.Reason = "admitted"
	return v, nil
}
