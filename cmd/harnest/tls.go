package main

import (
	"crypto/tls"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"sync/atomic"
	"syscall"

	"github.com/harnest/harnest/config"
)

// certificate serves server.tls's certificate and reads its files again on
// SIGHUP. A reload that fails keeps the certificate in use and says why.
type certificate struct {
	certFile, keyFile string
	current           atomic.Pointer[tls.Certificate]
	log               *slog.Logger
}

// loadCertificate reads the configured PEM files (relative to the agent
// folder) once.
func loadCertificate(t config.TLS, folder string, log *slog.Logger) (*certificate, error) {
	c := &certificate{certFile: inFolder(t.CertFile, folder), keyFile: inFolder(t.KeyFile, folder), log: log}
	if err := c.reload(); err != nil {
		return nil, err
	}
	return c, nil
}

func inFolder(path, folder string) string {
	if filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(folder, path)
}

// reload reads the files again.
func (c *certificate) reload() error {
	pair, err := tls.LoadX509KeyPair(c.certFile, c.keyFile)
	if err != nil {
		return fmt.Errorf("server.tls: load %s and %s: %w", c.certFile, c.keyFile, err)
	}
	c.current.Store(&pair)
	return nil
}

// config is the TLS configuration of the listener: HTTP/2 and HTTP/1.1,
// TLS 1.2 at least, the current certificate on every handshake.
func (c *certificate) config() *tls.Config {
	return &tls.Config{
		MinVersion: tls.VersionTLS12,
		NextProtos: []string{"h2", "http/1.1"},
		GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) {
			return c.current.Load(), nil
		},
	}
}

// reloadOnHangup reloads the certificate on every SIGHUP until stop is
// called.
func (c *certificate) reloadOnHangup() (stop func()) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-hup:
				if err := c.reload(); err != nil {
					c.log.Error("TLS certificate not reloaded; the previous one stays in use", "err", err)
				} else {
					c.log.Info("TLS certificate reloaded", "certFile", c.certFile)
				}
			case <-done:
				return
			}
		}
	}()
	return func() {
		signal.Stop(hup)
		close(done)
	}
}
