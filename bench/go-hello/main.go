// The Go baseline of the load suite: a net/http server configured the way Fabric's fabhttp is
// (TLS >= 1.2 with fabhttp's TLS 1.2 suites, client certificates verified when given or required,
// ReadTimeout 10 s, WriteTimeout 2 min, HTTP/1.1 only) that answers each request with the bytes the
// operations server answered, read from a responses file. It shows where Go's own floor sits.
// Standard library only, so it builds offline.
//
//	go-hello '{"certFile":…,"keyFile":…,"caFile":…,"responsesFile":…,"clientAuthRequired":false}'
//
// The responses file maps "METHOD /path tls|mtls" to {status, contentType, body (base64)}; "mtls"
// is chosen when the client presented a verified certificate. Prints "listening on 127.0.0.1:<port>".
package main

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"
)

type options struct {
	CertFile           string `json:"certFile"`
	KeyFile            string `json:"keyFile"`
	CAFile             string `json:"caFile"`
	ResponsesFile      string `json:"responsesFile"`
	ClientAuthRequired bool   `json:"clientAuthRequired"`
}

type storedResponse struct {
	Status      int    `json:"status"`
	ContentType string `json:"contentType"`
	Body        string `json:"body"`
}

type answer struct {
	status        int
	contentType   string
	contentLength string
	body          []byte
}

func main() {
	if len(os.Args) != 2 {
		log.Fatal("usage: go-hello '<json options>'")
	}
	var opts options
	if err := json.Unmarshal([]byte(os.Args[1]), &opts); err != nil {
		log.Fatalf("options: %v", err)
	}
	answers, err := loadAnswers(opts.ResponsesFile)
	if err != nil {
		log.Fatalf("responses: %v", err)
	}
	cert, err := tls.LoadX509KeyPair(opts.CertFile, opts.KeyFile)
	if err != nil {
		log.Fatalf("certificate: %v", err)
	}
	caPEM, err := os.ReadFile(opts.CAFile)
	if err != nil {
		log.Fatalf("client CA: %v", err)
	}
	clientCAs := x509.NewCertPool()
	clientCAs.AppendCertsFromPEM(caPEM)
	clientAuth := tls.VerifyClientCertIfGiven
	if opts.ClientAuthRequired {
		clientAuth = tls.RequireAndVerifyClientCert
	}
	tlsConfig := &tls.Config{
		Certificates: []tls.Certificate{cert},
		MinVersion:   tls.VersionTLS12,
		CipherSuites: []uint16{
			tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
			tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
			tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
			tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
			tls.TLS_RSA_WITH_AES_128_GCM_SHA256,
			tls.TLS_RSA_WITH_AES_256_GCM_SHA384,
		},
		ClientCAs:  clientCAs,
		ClientAuth: clientAuth,
	}

	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth := "tls"
		if r.TLS != nil && len(r.TLS.VerifiedChains) > 0 && len(r.TLS.VerifiedChains[0]) > 0 {
			auth = "mtls"
		}
		if r.Method == http.MethodPut {
			// As Fabric's /logspec PUT: decode the first JSON value of the body.
			var spec struct {
				Spec string `json:"spec,omitempty"`
			}
			if err := json.NewDecoder(r.Body).Decode(&spec); err != nil && err != io.EOF {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
		}
		a, ok := answers[r.Method+" "+r.URL.Path+" "+auth]
		if !ok {
			http.NotFound(w, r)
			return
		}
		h := w.Header()
		if a.contentType != "" {
			h["Content-Type"] = []string{a.contentType}
		}
		h["Content-Length"] = []string{a.contentLength}
		w.WriteHeader(a.status)
		w.Write(a.body)
	})

	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatalf("listen: %v", err)
	}
	server := &http.Server{
		Handler:      handler,
		ReadTimeout:  10 * time.Second,
		WriteTimeout: 2 * time.Minute,
		ErrorLog:     log.New(io.Discard, "", 0),
	}
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		<-signals
		server.Close()
		os.Exit(0)
	}()
	fmt.Printf("listening on %s\n", listener.Addr())
	if err := server.Serve(tls.NewListener(listener, tlsConfig)); err != nil && err != http.ErrServerClosed {
		log.Fatalf("serve: %v", err)
	}
}

func loadAnswers(file string) (map[string]answer, error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var stored map[string]storedResponse
	if err := json.Unmarshal(raw, &stored); err != nil {
		return nil, err
	}
	answers := make(map[string]answer, len(stored))
	for key, s := range stored {
		body, err := base64.StdEncoding.DecodeString(s.Body)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", key, err)
		}
		answers[key] = answer{status: s.Status, contentType: s.ContentType, contentLength: strconv.Itoa(len(body)), body: body}
	}
	return answers, nil
}
