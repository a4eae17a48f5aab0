package fakemcp

import (
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTP is NewServer served over Streamable HTTP on 127.0.0.1. Its tools
// live as long as it does: Stop and Restart end and start the HTTP side
// (and its sessions), as a server process that dies and comes back would.
type HTTP struct {
	// URL is the endpoint to give a Streamable HTTP client; it stays the
	// same across Restart.
	URL string

	t         testing.TB
	server    *mcp.Server
	addr      string // host:port of URL
	stateless bool   // StreamableHTTPOptions.Stateless

	mu      sync.Mutex
	http    *httptest.Server // nil while stopped
	headers []http.Header
}

// StartHTTP serves NewServer over Streamable HTTP on a free port of
// 127.0.0.1 and stops it when the test ends.
// Clients negotiate protocol 2025-11-25 with it (sessions, the standalone
// SSE stream).
func StartHTTP(t testing.TB) *HTTP {
	t.Helper()
	return startHTTP(t, false)
}

// StartStatelessHTTP is StartHTTP in the SDK's stateless mode, which is
// how protocol 2026-07-28 is served over HTTP (no sessions; changes come
// through subscriptions/listen).
func StartStatelessHTTP(t testing.TB) *HTTP {
	t.Helper()
	return startHTTP(t, true)
}

func startHTTP(t testing.TB, stateless bool) *HTTP {
	t.Helper()
	h := &HTTP{t: t, server: NewServer(), stateless: stateless}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("fakemcp: listen on 127.0.0.1: %v", err)
	}
	h.addr = ln.Addr().String()
	h.URL = "http://" + h.addr + "/mcp"
	h.serve(ln)
	t.Cleanup(h.Stop)
	return h
}

// serve starts a fresh handler (no sessions yet) on ln.
func (h *HTTP) serve(ln net.Listener) {
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return h.server },
		&mcp.StreamableHTTPOptions{Stateless: h.stateless})
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		h.headers = append(h.headers, r.Header.Clone())
		h.mu.Unlock()
		handler.ServeHTTP(w, r)
	}))
	_ = srv.Listener.Close()
	srv.Listener = ln
	srv.Start()

	h.mu.Lock()
	h.http = srv
	h.mu.Unlock()
}

// Stop ends the HTTP server and every connection to it, as if its process
// died: clients' requests fail until Restart. It is harmless when stopped.
func (h *HTTP) Stop() {
	h.mu.Lock()
	srv := h.http
	h.http = nil
	h.mu.Unlock()
	if srv == nil {
		return
	}
	// Long-lived streams (the standalone SSE GET) would make Close wait:
	// cut every connection first.
	srv.CloseClientConnections()
	srv.Close()
}

// Restart serves again on the same address after Stop, with no session of
// before: clients must connect again. The test fails if the address is no
// longer free.
func (h *HTTP) Restart() {
	h.t.Helper()
	h.Stop()
	ln, err := net.Listen("tcp", h.addr)
	if err != nil {
		h.t.Fatalf("fakemcp: listen again on %s: %v", h.addr, err)
	}
	h.serve(ln)
}

// AddTool adds a tool like echo under name; connected clients get
// notifications/tools/list_changed.
func (h *HTTP) AddTool(name string) {
	addEchoTool(h.server, name)
}

// Headers returns the headers of every request served so far, oldest
// first.
func (h *HTTP) Headers() []http.Header {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]http.Header, len(h.headers))
	copy(out, h.headers)
	return out
}

// Server is the MCP server behind the endpoint, for tests that change its
// tools in other ways.
func (h *HTTP) Server() *mcp.Server { return h.server }
