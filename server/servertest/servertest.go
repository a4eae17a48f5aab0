// Package servertest starts whole in-process harnest servers for tests, on
// either store: the one helper every transport's tests use (they differ in
// what they send, not in how a server is built).
package servertest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	goruntime "runtime"
	"testing"
	"time"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/live"
	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/runtime/store"
	"github.com/harnest/harnest/runtime/store/stores"
	"github.com/harnest/harnest/server"
)

// Setup describes a server under test.
type Setup struct {
	// Folder is the agent folder; default the repository's examples/hello.
	Folder string
	// Config changes the loaded config before the server starts.
	Config func(*config.Config)
	// Agent replaces the configured backend.
	Agent runtime.Agent
	// Tune adjusts the runtime's options (short leases, sweeps).
	Tune func(*runtime.Options)
	// Prefix is the key prefix (default: one per test); replicas on one
	// Redis share one.
	Prefix string
	// Live adjusts the /live handler's options (enable it with
	// Config: c.Server.Live = true).
	Live func(*live.Options)
	// Store is a store to share (replicas on one in-process store); the
	// server does not close it.
	Store store.Store
}

// Server is a whole harnest server over httptest.
type Server struct {
	T     testing.TB
	URL   string
	Srv   *server.Server
	HTTP  *httptest.Server
	Token string // sent as a bearer token when not empty
}

// EachStore runs fn against a server on the in-process store and on a
// real redis-server.
func EachStore(t *testing.T, s Setup, fn func(t *testing.T, ts *Server)) {
	for _, c := range testutil.Stores(t) {
		t.Run(c.Name, func(t *testing.T) { fn(t, Start(t, c.URL, s)) })
	}
}

// EachStoreReplicas runs fn against n replicas that share one store: one
// in-process store, or one real redis-server (each replica with its own
// connections, as separate processes would have).
func EachStoreReplicas(t *testing.T, n int, s Setup, fn func(t *testing.T, replicas []*Server)) {
	for _, c := range testutil.Stores(t) {
		t.Run(c.Name, func(t *testing.T) { fn(t, Replicas(t, c.URL, n, s)) })
	}
}

// Replicas starts n servers on one store (redisURL "" is the in-process
// store, shared by all of them).
func Replicas(t testing.TB, redisURL string, n int, s Setup) []*Server {
	t.Helper()
	s = Shared(t, redisURL, s)
	out := make([]*Server, n)
	for i := range out {
		out[i] = Start(t, redisURL, s)
	}
	return out
}

// Shared returns s set up for replicas of one store: one key prefix, and
// for the in-process store (redisURL "") one store that every server
// started with the returned setup shares, closed when the test ends.
func Shared(t testing.TB, redisURL string, s Setup) Setup {
	t.Helper()
	if s.Prefix == "" {
		s.Prefix = testutil.Prefix(t)
	}
	if redisURL == "" && s.Store == nil {
		st, err := stores.Open(context.Background(), stores.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() }) // after the servers' cleanups
		s.Store = st
	}
	return s
}

// Start starts a server on the given Redis ("" is the in-process store)
// and stops it when the test ends.
func Start(t testing.TB, redisURL string, s Setup) *Server {
	t.Helper()
	folder := s.Folder
	if folder == "" {
		folder = filepath.Join(repoRoot(), "examples", "hello")
	}
	f, err := config.Load(folder)
	if err != nil {
		t.Fatal(err)
	}
	f.Config.Store.KeyPrefix = testutil.Prefix(t)
	if s.Prefix != "" {
		f.Config.Store.KeyPrefix = s.Prefix
	}
	if s.Config != nil {
		s.Config(&f.Config)
	}
	srv, err := server.New(context.Background(), f, server.Options{RedisURL: redisURL, Agent: s.Agent, Tune: s.Tune, Live: s.Live, Store: s.Store})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler)
	t.Cleanup(func() {
		if h := srv.Live(); h != nil {
			// Sockets still running a response get a moment, then it is
			// cancelled; Shutdown returns once every socket is gone.
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			_ = h.Shutdown(ctx)
			cancel()
		}
		hs.Close()
		// Responses still waiting for an answer are cancelled at once.
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		_ = srv.Service.Shutdown(ctx)
		srv.Close()
	})
	return &Server{T: t, URL: hs.URL, Srv: srv, HTTP: hs}
}

// repoRoot is the repository's root directory (this file is in server/servertest).
func repoRoot() string {
	_, file, _, _ := goruntime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// As returns a copy of the server handle that sends the given token.
func (ts *Server) As(token string) *Server {
	c := *ts
	c.Token = token
	return &c
}

// Reply is a finished HTTP exchange.
type Reply struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body as a JSON object.
func (r Reply) JSON(t testing.TB) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(r.Body, &v); err != nil {
		t.Fatalf("body is not a JSON object: %v: %s", err, r.Body)
	}
	return v
}

// Request builds a request to the server with its token; headers are
// name, value pairs.
func (ts *Server) Request(method, path, contentType string, body []byte, headers ...string) *http.Request {
	ts.T.Helper()
	req, err := http.NewRequest(method, ts.URL+path, bytes.NewReader(body))
	if err != nil {
		ts.T.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if ts.Token != "" {
		req.Header.Set("Authorization", "Bearer "+ts.Token)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return req
}

// Do sends a request and reads the whole reply.
func (ts *Server) Do(method, path, contentType string, body []byte, headers ...string) Reply {
	ts.T.Helper()
	resp, err := http.DefaultClient.Do(ts.Request(method, path, contentType, body, headers...))
	if err != nil {
		ts.T.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return Reply{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

// Get sends a GET.
func (ts *Server) Get(path string) Reply { return ts.Do("GET", path, "", nil) }

// Post sends a JSON POST.
func (ts *Server) Post(path, body string) Reply {
	return ts.Do("POST", path, "application/json", []byte(body))
}

// Stream posts a streaming request to path and returns every SSE frame
// (the stream must answer 200 and end) and the response.
func (ts *Server) Stream(path, body string) ([]testutil.SSEFrame, *http.Response) {
	ts.T.Helper()
	resp, err := http.DefaultClient.Do(ts.Request("POST", path, "application/json", []byte(body)))
	if err != nil {
		ts.T.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		ts.T.Fatalf("stream status %d: %s", resp.StatusCode, b)
	}
	frames := testutil.ReadSSE(resp.Body)
	for _, f := range frames {
		if f.Err != nil {
			ts.T.Fatalf("frame data is not JSON: %q", f.Raw)
		}
	}
	return frames, resp
}

// MustStatus fails the test unless the reply has the status; for error
// statuses it also checks the {"detail","code"} body.
func MustStatus(t testing.TB, r Reply, status int) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d: %s", r.Status, status, r.Body)
	}
	if status >= 400 {
		var e struct{ Detail, Code string }
		if json.Unmarshal(r.Body, &e) != nil || e.Detail == "" || e.Code == "" {
			t.Fatalf("error body is not {detail, code}: %s", r.Body)
		}
	}
}
