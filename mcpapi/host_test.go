package mcpapi_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/harnest/harnest/internal/auth"
	"github.com/harnest/harnest/mcpapi"
	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/server/servertest"
)

// TestHostGuard: on a loopback listener, /mcp takes loopback names and the
// public base URL's host, and refuses any other name (DNS rebinding).
func TestHostGuard(t *testing.T) {
	door := mcpapi.New(mcpapi.Options{AgentName: "hello", PublicBaseURL: "https://agents.example.com/", Sessions: bareStore(t)})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		door.ServeHTTP(w, r.WithContext(auth.With(r.Context(), runtime.Anonymous)))
	}))
	t.Cleanup(srv.Close)
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	for host, want := range map[string]int{
		"":                   http.StatusOK, // the listener's own 127.0.0.1:port
		"localhost:1907":     http.StatusOK,
		"agents.example.com": http.StatusOK,
		"evil.example":       http.StatusForbidden,
	} {
		req, err := http.NewRequest("POST", srv.URL, strings.NewReader(initialize))
		if err != nil {
			t.Fatal(err)
		}
		if host != "" {
			req.Host = host
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("Host %q: status %d, want %d", host, resp.StatusCode, want)
		}
	}
}

// TestClose: Close ends the sessions and their open streams, so that the
// HTTP server can stop, and refuses what comes later.
func TestClose(t *testing.T) {
	door := mcpapi.New(mcpapi.Options{AgentName: "hello", Sessions: bareStore(t)})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		door.ServeHTTP(w, r.WithContext(auth.With(r.Context(), runtime.Anonymous)))
	}))
	ts := &servertest.Server{T: t, URL: srv.URL}
	cs := connect(t, ts, client{})
	if err := cs.Ping(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if err := door.(io.Closer).Close(); err != nil {
		t.Fatal(err)
	}
	closed := make(chan struct{})
	go func() { srv.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		srv.CloseClientConnections()
		t.Fatal("the HTTP server still waits for /mcp streams after Close")
	}
	rec := httptest.NewRecorder()
	door.ServeHTTP(rec, httptest.NewRequest("POST", "/mcp", nil).WithContext(auth.With(context.Background(), runtime.Anonymous)))
	if rec.Code != http.StatusServiceUnavailable {
		t.Errorf("after Close: %d %s", rec.Code, rec.Body)
	}
}
