// Package servertest starts whole in-process harnest servers for tests, on
// either store: the one helper every transport's tests use (they differ in
// what they send, not in how a server is built).
package servertest

import (
	"context"
	"log/slog"
	"net"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	goruntime "runtime"
	"testing"
	"time"

	"github.com/harnest/harnest/a2a"
	"github.com/harnest/harnest/agui"
	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/live"
	"github.com/harnest/harnest/mcpapi"
	"github.com/harnest/harnest/outbox"
	"github.com/harnest/harnest/relay"
	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/schedule"
	"github.com/harnest/harnest/server"
	"github.com/harnest/harnest/store"
	"github.com/harnest/harnest/store/stores"
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
	// Relay adjusts the relay's options (a settable clock, Now).
	Relay func(*relay.Options)
	// AGUI adjusts the /agui handler's options (the keep-alive interval).
	AGUI func(*agui.Options)
	// MCP adjusts the /mcp handler's options (the session idle timeout).
	MCP func(*mcpapi.Options)
	// A2A adjusts the A2A server's options (who the caller is, Principal).
	A2A func(*a2a.Options)
	// Card replaces the folder's agent-card.yaml (as config.Folder.Card
	// holds it): the A2A interfaces the server mounts.
	Card map[string]any
	// PublicURL sets server.publicBaseURL to the test server's own URL,
	// so that the served A2A card names the interfaces where clients
	// reach them.
	PublicURL bool
	// Store is a store to share (replicas on one in-process store); the
	// server does not close it.
	Store store.Store
	// Logger receives the server's log (default: discarded).
	Logger *slog.Logger
	// Outbox adjusts the outbox dispatcher's options (poll, lease,
	// backoff of push notifications and webhooks).
	Outbox func(*outbox.DispatcherOptions)
	// Schedules adjusts the schedules' options (tick, hold, clock,
	// missed-fire policy).
	Schedules func(*schedule.Options)
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
	mustTraceToLoopback(t)
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
	if s.Card != nil {
		f.Card = s.Card
	}
	// The listener exists before the server, so that its URL can be the
	// public base URL.
	hs := httptest.NewUnstartedServer(nil)
	url := "http://" + hs.Listener.Addr().String()
	if s.PublicURL {
		f.Config.Server.PublicBaseURL = url
	}
	if s.Config != nil {
		s.Config(&f.Config)
	}
	srv, err := server.New(context.Background(), f, server.Options{RedisURL: redisURL, Agent: s.Agent, Tune: s.Tune,
		Live: s.Live, Relay: s.Relay, AGUI: s.AGUI, MCP: s.MCP, A2A: s.A2A, Store: s.Store, Logger: s.Logger, Outbox: s.Outbox, Schedules: s.Schedules})
	if err != nil {
		hs.Close()
		t.Fatal(err)
	}
	hs.Config.Handler = srv.Handler
	hs.Start()
	t.Cleanup(func() {
		if h := srv.Live(); h != nil {
			// Sockets still running a response get a moment, then it is
			// cancelled; Shutdown returns once every socket is gone.
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			_ = h.Shutdown(ctx)
			cancel()
		}
		// Requests still open (long polls, followed streams) are cut, so
		// that Close does not wait for them.
		hs.CloseClientConnections()
		hs.Close()
		// Responses still waiting for an answer are cancelled at once.
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		_ = srv.Service.Shutdown(ctx)
		srv.Close()
	})
	return &Server{T: t, URL: url, Srv: srv, HTTP: hs}
}

// repoRoot is the repository's root directory (this file is in server/servertest).
func repoRoot() string {
	_, file, _, _ := goruntime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// mustTraceToLoopback fails a test whose environment would make the server
// export traces off this machine (a developer's OTEL_EXPORTER_OTLP_*
// variables): tests reach loopback only.
func mustTraceToLoopback(t testing.TB) {
	t.Helper()
	for _, name := range []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"} {
		v := os.Getenv(name)
		if v == "" || os.Getenv("OTEL_SDK_DISABLED") == "true" {
			continue
		}
		u, err := url.Parse(v)
		if err != nil || !loopbackHost(u.Hostname()) {
			t.Fatalf("%s=%q would export the test server's traces off this machine; unset it (tests trace only to loopback)", name, v)
		}
	}
}

func loopbackHost(h string) bool {
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}
