package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/harnest/harnest/internal/testutil"
)

// writeCertificate writes a self-signed certificate for 127.0.0.1 named cn
// to dir/cert.pem and dir/key.pem, and returns it for clients to trust.
func writeCertificate(t *testing.T, dir, cn string) *x509.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, BasicConstraintsValid: true, IsCA: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	// Written next to each other, then renamed, so the server never reads
	// a half-written pair.
	for name, block := range map[string]*pem.Block{"cert.pem": {Type: "CERTIFICATE", Bytes: der}, "key.pem": {Type: "EC PRIVATE KEY", Bytes: keyDER}} {
		tmp := filepath.Join(dir, name+".tmp")
		if err := os.WriteFile(tmp, pem.EncodeToMemory(block), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return cert
}

// startTLS serves dir over HTTPS, trusting the given certificates.
func startTLS(t *testing.T, dir string, trust []*x509.Certificate, args ...string) *harnest {
	t.Helper()
	port, err := testutil.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	h := launch(t, dir, port, nil, args)
	h.URL = strings.Replace(h.URL, "http://", "https://", 1)
	h.client = tlsClient(trust)
	if err := h.waitHealthy(10 * time.Second); err != nil {
		t.Fatalf("harnest serve over TLS did not become healthy: %v\nstderr:\n%s", err, h.stderr)
	}
	return h
}

// tlsClient trusts the given certificates, speaks HTTP/2, and opens a new
// connection for every request (so each one sees the current certificate).
func tlsClient(trust []*x509.Certificate) *http.Client {
	pool := x509.NewCertPool()
	for _, c := range trust {
		pool.AddCert(c)
	}
	return &http.Client{Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true, DisableKeepAlives: true,
	}, Timeout: 5 * time.Second}
}

func TestTLSWithHTTP2AndReloadOnSIGHUP(t *testing.T) {
	t.Parallel()
	dir := agentFolder(t, "", "server:\n  tls:\n    certFile: cert.pem\n    keyFile: key.pem\n")
	first := writeCertificate(t, dir, "harnest-first")
	h := startTLS(t, dir, []*x509.Certificate{first})
	if out := h.waitOutput(t, "Auth:"); !strings.Contains(out, "API:        https://127.0.0.1:") {
		t.Errorf("banner does not name the https address:\n%s", out)
	}
	resp, err := h.client.Get(h.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.ProtoMajor != 2 || resp.TLS.PeerCertificates[0].Subject.CommonName != "harnest-first" {
		t.Fatalf("proto %s, certificate %q; want HTTP/2 with harnest-first", resp.Proto, resp.TLS.PeerCertificates[0].Subject.CommonName)
	}

	second := writeCertificate(t, dir, "harnest-second")
	h.client = tlsClient([]*x509.Certificate{first, second})
	h.signal(syscall.SIGHUP)
	deadline := time.Now().Add(5 * time.Second)
	for {
		resp, err := h.client.Get(h.URL + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.TLS.PeerCertificates[0].Subject.CommonName == "harnest-second" {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the certificate was not reloaded within 5 s of SIGHUP (last error %v)\nstderr:\n%s", err, h.stderr)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// A reload that fails keeps the certificate in use.
	if err := os.WriteFile(filepath.Join(dir, "cert.pem"), []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	h.signal(syscall.SIGHUP)
	waitFor(t, 5*time.Second, func() bool { return strings.Contains(h.stderr.String(), "TLS certificate not reloaded") })
	mustStatus(t, h.get(t, "/healthz"), http.StatusOK)
	h.mustStop(t)
}

func TestDrainDelayTurnsReadinessOffFirst(t *testing.T) {
	t.Parallel()
	h := startHarnest(t, agentFolder(t, "", ""), nil, "--drain-delay", "1500ms")
	mustStatus(t, h.get(t, "/readyz"), http.StatusOK)
	h.signal(syscall.SIGTERM)
	waitFor(t, 5*time.Second, func() bool {
		r, err := h.exchange(time.Second, "GET", "/readyz", "")
		return err == nil && r.Status == http.StatusServiceUnavailable && strings.Contains(string(r.Body), "server_shutdown")
	})
	// Still serving while it drains.
	h.completeResponse(t, `{"input":"during the drain"}`)
	h.mustExitAfterSignal(t)
}

// waitFor polls cond until it holds or limit passes.
func waitFor(t *testing.T, limit time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("condition not met within %v", limit)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
