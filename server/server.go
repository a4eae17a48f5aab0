// Package server assembles harnest from an agent folder: the store, the
// backend, the runtime, and every transport on one HTTP handler behind the
// request log, the body guard (body timeout, draining) and auth.
// cmd/harnest and end-to-end tests both use it.
package server

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/harnest/harnest/store/stores"

	"github.com/harnest/harnest/a2a"
	"github.com/harnest/harnest/agui"
	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/auth"
	"github.com/harnest/harnest/internal/memory"
	"github.com/harnest/harnest/internal/metrics"
	"github.com/harnest/harnest/internal/tracing"
	"github.com/harnest/harnest/live"
	"github.com/harnest/harnest/mcpapi"
	"github.com/harnest/harnest/outbox"
	"github.com/harnest/harnest/relay"
	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/schedule"
	"github.com/harnest/harnest/store"
)

// Options override parts of the folder's config.
type Options struct {
	RedisURL string // overrides store.redis.url when not empty
	Logger   *slog.Logger
	// Agent replaces the configured backend (tests).
	Agent runtime.Agent
	// Tune adjusts the runtime's options before it starts (tests: short
	// leases, expiries and sweeps).
	Tune func(*runtime.Options)
	// Live adjusts the /live handler's options (tests: ping interval,
	// write timeout, send queue).
	Live func(*live.Options)
	// Relay adjusts the relay's options (tests: a clock that jumps, Now).
	Relay func(*relay.Options)
	// AGUI adjusts the /agui handler's options (tests: the keep-alive
	// interval).
	AGUI func(*agui.Options)
	// MCP adjusts the /mcp handler's options (tests: the session idle
	// timeout).
	MCP func(*mcpapi.Options)
	// A2A adjusts the A2A server's options (tests: who the caller is,
	// Principal).
	A2A func(*a2a.Options)
	// Store replaces the configured store (tests: replicas that share one
	// in-process store). The server does not close a store it was given.
	Store store.Store
	// Outbox adjusts the outbox dispatcher's options (tests: the poll
	// interval, lease and backoff).
	Outbox func(*outbox.DispatcherOptions)
	// Schedules adjusts the schedules' options (tests: the tick, the hold
	// of a claimed fire, the missed-fire policy).
	Schedules func(*schedule.Options)
}

// Server is one harnest replica.
type Server struct {
	Folder  *config.Folder
	Store   store.Store
	Service *runtime.Service
	Handler http.Handler
	log     *slog.Logger
	agent   runtime.Agent
	live    *live.Handler // nil unless server.live
	mcp     http.Handler  // the /mcp door (an io.Closer: its sessions), nil unless server.mcp
	relay   *relay.Relay
	a2a     *a2a.Server
	metrics *metrics.Metrics    // nil unless server.metrics
	tracing *tracing.Tracing    // nil unless OTEL_EXPORTER_OTLP_ENDPOINT is set
	authn   *auth.Authenticator // the replica's one: the doors' middleware and the relay's owners
	// ownStore: the server opened its store (and closes it).
	ownStore bool
	tuneLive func(*live.Options)
	tuneAGUI func(*agui.Options)
	tuneMCP  func(*mcpapi.Options)
	tuneA2A  func(*a2a.Options)
	outbox   *outbox.Dispatcher // push notifications and webhooks
	// schedules fires users' schedules and serves their routes.
	schedules *schedule.Scheduler
	// memory is the agent's long-term memory (memory.go).
	memory *memory.Service
}

// Live is the /live handler, nil unless server.live is on.
func (s *Server) Live() *live.Handler { return s.live }

// A2A is the A2A server: the bindings agent-card.yaml declares.
func (s *Server) A2A() *a2a.Server { return s.a2a }

// New builds a server from a loaded folder: the store, the relay, the
// agent, the runtime and its outbox, then every door on one handler.
func New(ctx context.Context, f *config.Folder, o Options) (*Server, error) {
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	cfg := f.Config
	url := cfg.Store.Redis.URL
	if o.RedisURL != "" {
		url = o.RedisURL
	}
	met := metrics.ForConfig(cfg)
	st, err := openStore(ctx, cfg, url, o.Store, met.StoreObserver())
	if err != nil {
		return nil, err
	}
	release := func() { // on failure: close the store unless it was given
		if o.Store == nil {
			st.Close()
		}
	}
	jwt, err := auth.JWTFromConfig(cfg.Auth.JWT)
	if err != nil {
		release()
		return nil, err
	}
	authn := newAuthenticator(cfg, jwt)
	rl, err := openRelay(ctx, f, o, st, authn, log)
	if err != nil {
		release()
		return nil, err
	}
	mem, err := newMemory(cfg, st) // memory.go
	if err != nil {
		rl.Close()
		release()
		return nil, err
	}
	agent, err := pickAgent(ctx, f, o, st, rl, mem, log)
	if err != nil {
		rl.Close()
		release()
		return nil, err
	}
	tr, err := tracing.FromEnv(ctx)
	if err != nil {
		rl.Close()
		release()
		return nil, err
	}
	ro := runtimeOptions(cfg, st, agent, rl, log, met, tr)
	if ro.Contract, err = cfg.Spec.Contract(); err != nil { // spec.inputSchema, spec.outputSchema
		rl.Close()
		release()
		return nil, err
	}
	if o.Tune != nil {
		o.Tune(&ro)
	}
	svc := runtime.New(ro)
	sender := newOutbox(cfg, st, log, o)
	svc.UseOutbox(sender)
	s := &Server{Folder: f, Store: st, Service: svc, log: log, agent: agent, relay: rl, ownStore: o.Store == nil, authn: authn,
		tuneLive: o.Live, tuneAGUI: o.AGUI, tuneMCP: o.MCP, tuneA2A: o.A2A, metrics: met, tracing: tr, outbox: sender}
	s.schedules = s.newScheduler(o.Schedules)
	s.memory = mem
	if err := svc.Start(ctx); err != nil {
		s.closeAgent() // the relay, worker processes, MCP servers
		s.flushTraces()
		release()
		return nil, err
	}
	if s.Handler, err = s.routes(); err != nil {
		_ = svc.Shutdown(ctx)
		s.closeAgent()
		s.flushTraces()
		release()
		return nil, err
	}
	sender.Start()
	s.schedules.Start()
	return s, nil
}

// Close stops the service and releases the store (for servers that never
// Serve).
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if s.live != nil {
		_ = s.live.Shutdown(ctx)
	}
	s.closeMCP()
	_ = s.Service.Shutdown(ctx)
	s.closeAgent()
	defer s.flushTraces()
	return s.closeStore()
}

// flushTraces exports the last spans (within 5 s) and stops the exporter.
func (s *Server) flushTraces() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.tracing.Shutdown(ctx); err != nil {
		s.log.Warn("traces", "err", err)
	}
}

// openStore returns the given store, or opens the one the config names
// (url overrides store.redis.url) with observer counting its commands from
// the first. A given store is not observed: it may be shared, so its
// commands are not all this replica's.
func openStore(ctx context.Context, cfg config.Config, url string, given store.Store, observer store.CommandObserver) (store.Store, error) {
	if given != nil {
		return given, nil
	}
	return stores.Open(ctx, stores.Options{
		URL: url, KeyPrefix: cfg.Store.KeyPrefix,
		ReceiptTTL: time.Duration(cfg.Store.Retention.ReceiptsSeconds) * time.Second,
		Timeout:    cfg.Store.Redis.Timeout(),
		Observer:   observer,
	})
}

// closeStore closes the store if the server opened it.
func (s *Server) closeStore() error {
	s.schedules.Close() // before the store it reads
	s.outbox.Close()    // before the store it reads
	if !s.ownStore {
		return nil
	}
	return s.Store.Close()
}

// tokensOf lists the configured bearer tokens for the authenticator.
func tokensOf(cfg config.Config) []auth.Token {
	tokens := make([]auth.Token, len(cfg.Auth.Tokens))
	for i, t := range cfg.Auth.Tokens {
		tokens[i] = auth.Token{Token: t.Token, User: t.User}
	}
	return tokens
}

// closeMCP ends the /mcp door's sessions.
func (s *Server) closeMCP() {
	if c, ok := s.mcp.(io.Closer); ok {
		_ = c.Close()
	}
}

// closeAgent stops a backend that holds processes (exec workers) and the
// relay.
func (s *Server) closeAgent() {
	if s.relay != nil {
		s.relay.Close()
	}
	if c, ok := s.agent.(io.Closer); ok {
		if err := c.Close(); err != nil {
			s.log.Warn("closing the backend", "err", err)
		}
	}
}
