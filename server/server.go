// Package server assembles harnest from an agent folder: the store, the
// backend, the runtime, and every transport on one HTTP handler behind the
// request log, the body guard (body timeout, draining) and auth.
// cmd/harnest and end-to-end tests both use it.
package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/harnest/harnest/runtime/store/stores"

	"github.com/harnest/harnest/a2a"
	"github.com/harnest/harnest/agui"
	"github.com/harnest/harnest/backend"
	"github.com/harnest/harnest/backend/router"
	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/auth"
	"github.com/harnest/harnest/internal/httpapi"
	"github.com/harnest/harnest/internal/httplog"
	"github.com/harnest/harnest/internal/metrics"
	"github.com/harnest/harnest/internal/netguard"
	"github.com/harnest/harnest/internal/tracing"
	"github.com/harnest/harnest/live"
	"github.com/harnest/harnest/mcpapi"
	"github.com/harnest/harnest/neutral"
	"github.com/harnest/harnest/neutral/apidoc"
	"github.com/harnest/harnest/openaiapi"
	"github.com/harnest/harnest/playground"
	"github.com/harnest/harnest/relay"
	"github.com/harnest/harnest/routerapi"
	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/runtime/store"
	"github.com/harnest/harnest/skills"
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
	// A2A adjusts the A2A server's options (tests: who the caller is,
	// Principal).
	A2A func(*a2a.Options)
	// Store replaces the configured store (tests: replicas that share one
	// in-process store). The server does not close a store it was given.
	Store store.Store
	// Outbox adjusts the outbox dispatcher's options (tests: the poll
	// interval, lease and backoff).
	Outbox func(*runtime.DispatcherOptions)
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
	metrics *metrics.Metrics // nil unless server.metrics
	tracing *tracing.Tracing // nil unless OTEL_EXPORTER_OTLP_ENDPOINT is set
	jwt     *auth.JWT        // nil unless auth.jwt
	// ownStore: the server opened its store (and closes it).
	ownStore bool
	tuneLive func(*live.Options)
	tuneAGUI func(*agui.Options)
	tuneA2A  func(*a2a.Options)
	outbox   *runtime.Dispatcher // push notifications and webhooks
}

// Live is the /live handler, nil unless server.live is on.
func (s *Server) Live() *live.Handler { return s.live }

// A2A is the A2A server: the bindings agent-card.yaml declares.
func (s *Server) A2A() *a2a.Server { return s.a2a }

// New builds a server from a loaded folder.
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
	st, err := openStore(ctx, cfg, url, o.Store)
	if err != nil {
		return nil, err
	}
	release := func() { // on failure: close the store unless it was given
		if o.Store == nil {
			st.Close()
		}
	}
	// The relay (outside agents) is always served: its owner endpoints
	// pair participants, and it is the backend when spec.backend.relay is set.
	owners, firstOwner := map[string]bool{}, ""
	for _, t := range cfg.Auth.Tokens {
		if t.Owner {
			owners[t.User] = true
			if firstOwner == "" {
				firstOwner = t.User // visitors' turns go to this owner's outside agents
			}
		}
	}
	jwt, err := auth.JWTFromConfig(cfg.Auth.JWT) // shared by both authenticators: one JWKS cache, one owner record
	if err != nil {
		release()
		return nil, err
	}
	recipes, err := relay.LoadRecipes(f.Dir) // the built-in recipes and the folder's recipes/*.json
	if err != nil {
		release()
		return nil, err
	}
	rlo := relay.Options{Store: st, Recipes: recipes,
		Auth: auth.New(tokensOf(cfg), nil, auth.WithJWT(jwt)), Owners: owners, FirstOwner: firstOwner,
		Backend: cfg.Spec.Backend.Relay, Logger: log}
	if o.Relay != nil {
		o.Relay(&rlo)
	}
	rl, err := relay.New(rlo)
	if err != nil {
		release()
		return nil, err
	}
	if err := rl.OpenToolsAtHome(ctx, cfg.Spec, f.Dir, log); err != nil { // spec.relay.toolsAtHome
		release()
		return nil, err
	}
	agent := o.Agent
	switch {
	case agent != nil:
	case cfg.Spec.Backend.Relay != nil:
		agent = rl.Agent()
	default:
		if agent, err = backend.ForFolder(ctx, f, log, backend.Parts{Store: st, Relay: rl}); err != nil {
			rl.Close()
			release()
			return nil, err
		}
	}
	met := metrics.ForConfig(cfg)
	if o.Store == nil { // a given store may be shared: its commands are not all this replica's
		store.ObserveCommands(st, met.StoreObserver())
	}
	tr, err := tracing.FromEnv(ctx)
	if err != nil {
		rl.Close()
		release()
		return nil, err
	}
	ro := runtime.Options{
		Store: st, Agent: agent, Approvals: rl.ApprovalDesk(), Logger: log, Observer: met.Observer(), Tracer: tr.TurnTracer(),
		MaxConcurrent: cfg.Server.HTTP.MaxConcurrentRequests,
		MaxQueued:     cfg.Server.HTTP.MaxQueuedRequests,
		MaxPerUser:    cfg.Server.Limits.MaxTurnsPerUser,
		Limits:        runtime.UserLimits{TurnsPerDay: cfg.Server.Limits.TurnsPerDay, ConcurrentResponses: cfg.Server.Limits.ConcurrentResponses},
		Timeout:       cfg.Server.HTTP.RequestTimeout(),
		MaxInputBytes: int(cfg.Server.Limits.MaxRequestBytes),
		Lease:         time.Duration(cfg.Store.LeaseSeconds) * time.Second,
		Policy: runtime.OutputPolicy{
			ShowThinking:     cfg.Spec.Output.Thinking,
			HideToolActivity: !config.Enabled(cfg.Spec.Output.ToolActivity),
			AgentMetadata:    cfg.Spec.Output.AgentMetadata,
		},
	}
	if o.Tune != nil {
		o.Tune(&ro)
	}
	svc := runtime.New(ro)
	do := runtime.DispatcherOptions{Store: st, Logger: log,
		Policy: netguard.Policy{AllowHosts: cfg.Server.Outbound.AllowHosts, AllowHTTPLoopback: true}}
	if o.Outbox != nil {
		o.Outbox(&do)
	}
	outbox := runtime.NewDispatcher(do)
	svc.UseDispatcher(outbox)
	s := &Server{Folder: f, Store: st, Service: svc, log: log, agent: agent, relay: rl, ownStore: o.Store == nil, jwt: jwt,
		tuneLive: o.Live, tuneAGUI: o.AGUI, tuneA2A: o.A2A, metrics: met, tracing: tr, outbox: outbox}
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
	outbox.Start()
	return s, nil
}

// routes mounts every enabled transport and lists them in /agent.
func (s *Server) routes() (http.Handler, error) {
	cfg := s.Folder.Config
	mux := http.NewServeMux()
	// /live authenticates its own sockets (a browser cannot send headers on
	// a WebSocket handshake) and the relay its participants' session tokens,
	// so the HTTP middleware lets them through.
	authn := auth.New(tokensOf(cfg), func(r *http.Request) bool {
		return neutral.IsPublic(r) || a2a.IsPublic(r) || (r.Method == http.MethodGet && r.URL.Path == "/live") || s.relay.IsPublic(r) ||
			(config.Enabled(cfg.Server.Playground.Enabled) && playground.IsPublic(r)) ||
			(cfg.Server.OpenAICompat && openaiapi.IsPath(r)) || skills.IsPublic(r) || metrics.IsPublic(cfg, r)
	}, auth.WithJWT(s.jwt))
	s.relay.Register(mux)
	if r, ok := s.agent.(*router.Router); ok {
		routerapi.Register(mux, routerapi.Options{Router: r, IsOwner: s.relay.IsOwner})
	}
	endpoints := neutral.Endpoints()
	if config.Enabled(cfg.Server.Playground.Enabled) {
		page := playground.Handler()
		mux.Handle("GET /{$}", page)
		mux.Handle("GET /_harnest/", page)
	}
	if cfg.Server.Live {
		lo := live.Options{Service: s.Service, Auth: authn, Logger: s.log,
			MaxFrameBytes: int64(cfg.Server.Limits.MaxRequestBytes), AllowedOrigins: cfg.Server.AllowedOrigins}
		if s.tuneLive != nil {
			s.tuneLive(&lo)
		}
		s.live = live.New(lo)
		mux.Handle("GET /live", s.live)
		endpoints["live"] = "/live"
	} else {
		mux.Handle("GET /live", live.Disabled())
	}
	if config.Enabled(cfg.Server.AGUI) {
		endpoints["agui"] = "/agui"
	}
	if cfg.Server.MCP {
		s.mcp = mcpapi.New(mcpapi.Options{Service: s.Service, AgentName: cfg.Metadata.Name, DisplayName: s.agentName(),
			Description: cardString(s.Folder.Card, "description"), Logger: s.log,
			PublicBaseURL: cfg.Server.PublicBaseURL, MaxBodyBytes: int(cfg.Server.Limits.MaxRequestBytes)})
		mux.Handle("/mcp", s.mcp)
		endpoints["mcp"] = "/mcp"
	}
	if cfg.Server.OpenAICompat {
		mux.Handle("/v1/", openaiapi.New(openaiapi.Options{Service: s.Service, Auth: authn, AgentName: cfg.Metadata.Name,
			MaxBodyBytes: int(cfg.Server.Limits.MaxRequestBytes), Logger: s.log}))
		endpoints["openaiModels"], endpoints["openaiChatCompletions"] = "/v1/models", "/v1/chat/completions"
	}
	skills.Register(mux, skills.Options{Card: s.Folder.Card, PublicBaseURL: cfg.Server.PublicBaseURL, MCP: cfg.Server.MCP, AgentName: cfg.Metadata.Name})
	endpoints["skills"] = "/skills"
	var resources []neutral.Resource
	if config.Enabled(cfg.Server.OpenAPI) {
		docs, err := apidoc.HandlerFor(apidoc.Options{AgentName: s.agentName(), Description: cardString(s.Folder.Card, "description"), Live: cfg.Server.Live, AGUI: config.Enabled(cfg.Server.AGUI),
			MCP: cfg.Server.MCP, OpenAICompat: cfg.Server.OpenAICompat})
		if err != nil {
			return nil, fmt.Errorf("build OpenAPI document: %w", err)
		}
		for _, p := range []string{"/openapi.json", "/openapi.yaml", "/docs", "/docs/"} {
			mux.Handle(p, docs)
		}
		endpoints["openapi"], endpoints["openapiYaml"], endpoints["docs"] = "/openapi.json", "/openapi.yaml", "/docs"
		resources = []neutral.Resource{
			{Name: "openapi.json", URI: "/openapi.json", MimeType: "application/json"},
			{Name: "openapi.yaml", URI: "/openapi.yaml", MimeType: "application/yaml"},
		}
	}
	// A2A mounts what agent-card.yaml declares and serves the card both
	// A2A generations read (A2A routes are found through the card, not
	// /agent, as in the reference).
	ao := a2a.Options{
		Service: s.Service, Store: s.Store, Card: s.Folder.Card, ExtendedCard: s.Folder.ExtendedCard,
		PublicBaseURL: cfg.Server.PublicBaseURL, Logger: s.log,
		MaxBodyBytes: int(cfg.Server.Limits.MaxRequestBytes), Outbox: s.outbox,
	}
	if s.tuneA2A != nil {
		s.tuneA2A(&ao)
	}
	a2aSrv, err := a2a.New(ao)
	if err != nil {
		return nil, err
	}
	s.a2a = a2aSrv
	for _, w := range a2aSrv.Warnings() {
		s.log.Warn("agent card", "warning", w)
	}
	a2aSrv.Register(mux)
	api, err := neutral.New(neutral.Options{
		Service: s.Service, MaxBodyBytes: int(cfg.Server.Limits.MaxRequestBytes),
		Discovery: neutral.Discovery{
			ID: cfg.Metadata.Name, Name: s.agentName(), Description: cardString(s.Folder.Card, "description"),
			Card: a2aSrv.Card(), Endpoints: endpoints, Resources: resources,
		},
		CardHandler: a2aSrv.CardHandler(),
	})
	if err != nil {
		return nil, err
	}
	api.Register(mux)
	if config.Enabled(cfg.Server.AGUI) {
		uo := agui.Options{
			Service: s.Service, MaxBodyBytes: int(cfg.Server.Limits.MaxRequestBytes),
			Logger: s.log, Store: s.Store,
		}
		if s.tuneAGUI != nil {
			s.tuneAGUI(&uo)
		}
		// Mounted for every method: the handler answers anything but POST
		// with its own 405 ({detail, code}, Allow: POST).
		mux.Handle("/agui", agui.New(uo))
	}
	s.metrics.Mount(mux, metrics.Sources{Service: s.Service, Live: s.live, IsOwner: s.relay.IsOwner, Public: cfg.Server.MetricsPublic})
	// The body guard sits inside the request log (its 408s are logged) and
	// outside auth (a refused request's body is drained as well); metrics
	// count what the body guard and auth answer too. gRPC calls (A2A's
	// GRPC binding) are logged and counted, then go to their own server in
	// front of the rest, which authenticates them with the same tokens.
	// Each request's trace span (when traces are on) covers the rest.
	// Requests per minute are counted inside auth, where the user is known.
	// CORS answers browsers' preflights before auth (they carry no token).
	// The route is matched once, by the mux (httplog.Routes), and shared.
	chain := httpapi.CORS(cfg.Server.AllowedOrigins, s.tracing.Middleware(mux,
		httpapi.BodyGuard(cfg.Server.HTTP.BodyTimeout(), authn.Middleware(
			httpapi.RateLimit(httpapi.RateLimitOptions{Store: s.Store, PerMinute: cfg.Server.Limits.RequestsPerMinute, LimitAnonymous: !authn.Enabled(), Logger: s.log}, httplog.Routes(mux))))))
	return httplog.Middleware(s.log, s.metrics.Middleware(mux, s.a2a.WithGRPC(chain, authn))), nil
}

func (s *Server) agentName() string {
	if n := s.Folder.Config.Metadata.DisplayName; n != "" {
		return n
	}
	if n := cardString(s.Folder.Card, "name"); n != "" {
		return n
	}
	return s.Folder.Config.Metadata.Name
}

func cardString(card map[string]any, key string) string {
	v, _ := card[key].(string)
	return v
}

// Serve answers HTTP on l until ctx ends, then shuts down: it stops
// accepting, lets running responses finish within grace, cancels the rest
// (recording their receipts) and closes the store.
func (s *Server) Serve(ctx context.Context, l net.Listener, grace time.Duration) error {
	return s.ServeWith(ctx, l, ServeOptions{Grace: grace})
}

// ServeOptions say how a replica serves and stops.
type ServeOptions struct {
	// Grace is how long running responses may finish once shutting down.
	Grace time.Duration
	// DrainDelay is how long the replica keeps serving, not ready, before
	// it stops accepting: time for a load balancer to see /readyz fail.
	DrainDelay time.Duration
	// TLS, when set, serves HTTPS (HTTP/2 included) with it.
	TLS *tls.Config
}

// ServeWith is Serve with options: on ctx's end the replica first drains
// (GET /readyz answers 503 at once, turns are still taken) for DrainDelay,
// then shuts down as Serve does.
func (s *Server) ServeWith(ctx context.Context, l net.Listener, o ServeOptions) error {
	grace := o.Grace
	hs := &http.Server{
		Handler:           s.Handler,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       120 * time.Second,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
		TLSConfig:         o.TLS,
	}
	if s.a2a.ServesGRPC() {
		// gRPC over cleartext HTTP/2 (h2c, prior knowledge) on the same port.
		hs.Protocols = new(http.Protocols)
		hs.Protocols.SetHTTP1(true)
		hs.Protocols.SetHTTP2(true)
		hs.Protocols.SetUnencryptedHTTP2(true)
	}
	errc := make(chan error, 1)
	go func() {
		if o.TLS != nil {
			errc <- hs.ServeTLS(l, "", "") // the certificate comes from TLSConfig
			return
		}
		errc <- hs.Serve(l)
	}()
	select {
	case err := <-errc:
		s.closeStore()
		s.flushTraces()
		return err
	case <-ctx.Done():
	}
	s.Service.Drain()
	if o.DrainDelay > 0 {
		s.log.Info("draining: not ready, still serving", "delay", o.DrainDelay)
		select {
		case <-time.After(o.DrainDelay):
		case err := <-errc:
			s.closeStore()
			s.flushTraces()
			return err
		}
	}
	s.log.Info("shutting down", "grace", grace)
	graceCtx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	go func() { _ = s.Service.Shutdown(graceCtx) }()
	if s.live != nil {
		// http.Server.Shutdown does not see hijacked sockets.
		go func() { _ = s.live.Shutdown(graceCtx) }()
	}
	s.closeMCP() // its open event streams would hold the shutdown for the whole grace
	err := hs.Shutdown(graceCtx)
	if errors.Is(err, context.DeadlineExceeded) {
		// Grace is over: the service has cancelled what still ran; give
		// handlers a moment to write their last frames, then close.
		finalCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		err = hs.Shutdown(finalCtx)
		if err != nil {
			hs.Close()
		}
	}
	_ = s.Service.Shutdown(context.Background())
	s.closeAgent()
	s.closeStore()
	s.flushTraces()
	if serveErr := <-errc; !errors.Is(serveErr, http.ErrServerClosed) {
		return serveErr
	}
	return err // non-nil when connections had to be closed by force
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
// (url overrides store.redis.url).
func openStore(ctx context.Context, cfg config.Config, url string, given store.Store) (store.Store, error) {
	if given != nil {
		return given, nil
	}
	return stores.Open(ctx, stores.Options{
		URL: url, KeyPrefix: cfg.Store.KeyPrefix,
		ReceiptTTL: time.Duration(cfg.Store.Retention.ReceiptsSeconds) * time.Second,
		Timeout:    cfg.Store.Redis.Timeout(),
	})
}

// closeStore closes the store if the server opened it.
func (s *Server) closeStore() error {
	s.outbox.Close() // before the store it reads
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

// closeAgent stops a backend that holds processes (exec workers) and the
// relay.
// closeMCP ends the /mcp door's sessions.
func (s *Server) closeMCP() {
	if c, ok := s.mcp.(io.Closer); ok {
		_ = c.Close()
	}
}

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
