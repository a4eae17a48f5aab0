package server

import (
	"fmt"
	"net/http"

	"github.com/harnest/harnest/a2a"
	"github.com/harnest/harnest/agui"
	"github.com/harnest/harnest/backend/router"
	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/auth"
	"github.com/harnest/harnest/internal/httpapi"
	"github.com/harnest/harnest/internal/httplog"
	"github.com/harnest/harnest/internal/metrics"
	"github.com/harnest/harnest/live"
	"github.com/harnest/harnest/mcpapi"
	"github.com/harnest/harnest/neutral"
	"github.com/harnest/harnest/neutral/apidoc"
	"github.com/harnest/harnest/openaiapi"
	"github.com/harnest/harnest/playground"
	"github.com/harnest/harnest/relay"
	"github.com/harnest/harnest/routerapi"
	"github.com/harnest/harnest/skills"
	"github.com/harnest/harnest/trigger"
	"github.com/harnest/harnest/uichat"
)

// The replica's HTTP routes: every transport mounted on one mux, behind
// the middlewares every request passes.

// routes mounts every enabled transport and lists them in /agent.
func (s *Server) routes() (http.Handler, error) {
	cfg := s.Folder.Config
	mux := http.NewServeMux()
	authn := s.authn
	s.relay.Register(mux)
	if r, ok := s.agent.(*router.Router); ok {
		routerapi.Register(mux, routerapi.Options{Router: ownerRouter{r}, IsOwner: s.relay.IsOwner})
	}
	endpoints := neutral.Endpoints()
	if config.Enabled(cfg.Server.Playground.Enabled) {
		page := playground.Handler()
		mux.Handle("GET /{$}", page)
		mux.Handle("GET /_harnest/", page)
	}
	s.mountLive(mux, authn, endpoints)
	if config.Enabled(cfg.Server.AGUI) {
		endpoints["agui"] = "/agui"
	}
	s.mountSchedules(mux, endpoints)
	if err := s.mountTriggers(mux, endpoints); err != nil {
		return nil, err
	}
	s.mountEvals(mux, endpoints)  // evals.go
	s.mountMemory(mux, endpoints) // memory.go
	s.mountUsage(mux, endpoints)
	s.mountMCP(mux, endpoints)
	s.mountOpenAI(mux, authn, endpoints)
	s.mountUseChat(mux, endpoints)
	skills.Register(mux, skills.Options{Card: s.Folder.Card, PublicBaseURL: cfg.Server.PublicBaseURL, MCP: cfg.Server.MCP, AgentName: cfg.Metadata.Name})
	endpoints["skills"] = "/skills"
	resources, err := s.mountAPIDocs(mux, endpoints)
	if err != nil {
		return nil, err
	}
	a2aSrv, err := s.mountA2A(mux)
	if err != nil {
		return nil, err
	}
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
	s.mountAGUI(mux)
	s.metrics.Mount(mux, s.metricsSources())
	return s.middlewares(mux, authn), nil
}

// newAuthenticator checks the bearer tokens and JWTs of every request
// but the public ones; it is the replica's one authenticator, which the
// relay also asks who the owner is. /live authenticates its own sockets (a
// browser cannot send headers on a WebSocket handshake) and the relay its
// participants' session tokens, so the HTTP middleware lets them through.
func newAuthenticator(cfg config.Config, jwt *auth.JWT) *auth.Authenticator {
	return auth.New(tokensOf(cfg), func(r *http.Request) bool {
		return neutral.IsPublic(r) || a2a.IsPublic(r) || (r.Method == http.MethodGet && r.URL.Path == "/live") || relay.IsPublic(r) ||
			(config.Enabled(cfg.Server.Playground.Enabled) && playground.IsPublic(r)) ||
			((cfg.Server.OpenAICompat || cfg.Server.OpenResponses) && openaiapi.IsPath(r)) || skills.IsPublic(r) || metrics.IsPublic(cfg, r) ||
			trigger.IsPublic(r)
	}, auth.WithJWT(jwt))
}

// mountLive serves WS /live when server.live is on (and answers that it
// is off otherwise).
func (s *Server) mountLive(mux *http.ServeMux, authn *auth.Authenticator, endpoints map[string]string) {
	cfg := s.Folder.Config
	if !cfg.Server.Live {
		mux.Handle("GET /live", live.Disabled())
		return
	}
	lo := live.Options{Service: s.Service, Auth: authn, Logger: s.log,
		MaxFrameBytes: int64(cfg.Server.Limits.MaxRequestBytes), AllowedOrigins: cfg.Server.AllowedOrigins}
	if s.tuneLive != nil {
		s.tuneLive(&lo)
	}
	s.live = live.New(lo)
	mux.Handle("GET /live", s.live)
	endpoints["live"] = "/live"
}

// mountOpenAI serves /v1/: the OpenAI-compatible chat door
// (server.openaiCompat) and Open Responses (server.openResponses), which
// share the door's auth, model name and error shape.
func (s *Server) mountOpenAI(mux *http.ServeMux, authn *auth.Authenticator, endpoints map[string]string) {
	cfg := s.Folder.Config
	if !cfg.Server.OpenAICompat && !cfg.Server.OpenResponses {
		return
	}
	mux.Handle("/v1/", openaiapi.New(openaiapi.Options{Service: s.Service, Auth: authn, AgentName: cfg.Metadata.Name,
		MaxBodyBytes: int(cfg.Server.Limits.MaxRequestBytes), Logger: s.log,
		ChatCompletions: cfg.Server.OpenAICompat, Responses: cfg.Server.OpenResponses, Requests: s.Store}))
	if cfg.Server.OpenAICompat {
		endpoints["openaiModels"], endpoints["openaiChatCompletions"] = "/v1/models", "/v1/chat/completions"
	}
	if cfg.Server.OpenResponses {
		endpoints["openResponses"] = "/v1/responses"
	}
}

// mountUseChat serves the AI SDK's useChat endpoint at /api/chat when
// server.useChat is on.
func (s *Server) mountUseChat(mux *http.ServeMux, endpoints map[string]string) {
	cfg := s.Folder.Config
	if !cfg.Server.UseChat {
		return
	}
	h := uichat.New(uichat.Options{Service: s.Service, MaxBodyBytes: int(cfg.Server.Limits.MaxRequestBytes), Logger: s.log})
	mux.Handle(uichat.Path, h)
	mux.Handle(uichat.Path+"/", h)
	endpoints["useChat"] = uichat.Path
}

// mountMCP serves the MCP door at /mcp when server.mcp is on.
func (s *Server) mountMCP(mux *http.ServeMux, endpoints map[string]string) {
	cfg := s.Folder.Config
	if !cfg.Server.MCP {
		return
	}
	mo := mcpapi.Options{Service: s.Service, AgentName: cfg.Metadata.Name, DisplayName: s.agentName(),
		Description: cardString(s.Folder.Card, "description"), Logger: s.log,
		PublicBaseURL: cfg.Server.PublicBaseURL, MaxBodyBytes: int(cfg.Server.Limits.MaxRequestBytes), Sessions: s.Store}
	if s.tuneMCP != nil {
		s.tuneMCP(&mo)
	}
	s.mcp = mcpapi.New(mo)
	mux.Handle("/mcp", s.mcp)
	endpoints["mcp"] = "/mcp"
}

// mountAPIDocs serves the OpenAPI documents and their page when
// server.openapi is on, and returns them as the MCP resources /agent lists.
func (s *Server) mountAPIDocs(mux *http.ServeMux, endpoints map[string]string) ([]neutral.Resource, error) {
	cfg := s.Folder.Config
	if !config.Enabled(cfg.Server.OpenAPI) {
		return nil, nil
	}
	docs, err := apidoc.HandlerFor(apidoc.Options{AgentName: s.agentName(), Description: cardString(s.Folder.Card, "description"), Live: cfg.Server.Live, AGUI: config.Enabled(cfg.Server.AGUI),
		MCP: cfg.Server.MCP, OpenAICompat: cfg.Server.OpenAICompat, OpenResponses: cfg.Server.OpenResponses, UseChat: cfg.Server.UseChat,
		InputSchema: string(cfg.Spec.InputSchema), OutputSchema: string(cfg.Spec.OutputSchema)})
	if err != nil {
		return nil, fmt.Errorf("build OpenAPI document: %w", err)
	}
	for _, p := range []string{"/openapi.json", "/openapi.yaml", "/docs", "/docs/"} {
		mux.Handle(p, docs)
	}
	endpoints["openapi"], endpoints["openapiYaml"], endpoints["docs"] = "/openapi.json", "/openapi.yaml", "/docs"
	return []neutral.Resource{
		{Name: "openapi.json", URI: "/openapi.json", MimeType: "application/json"},
		{Name: "openapi.yaml", URI: "/openapi.yaml", MimeType: "application/yaml"},
	}, nil
}

// mountA2A mounts what agent-card.yaml declares and serves the card both
// A2A generations read (A2A routes are found through the card, not
// /agent, as in the reference).
func (s *Server) mountA2A(mux *http.ServeMux) (*a2a.Server, error) {
	cfg := s.Folder.Config
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
	return a2aSrv, nil
}

// mountAGUI serves POST /agui when server.agui is on.
func (s *Server) mountAGUI(mux *http.ServeMux) {
	cfg := s.Folder.Config
	if !config.Enabled(cfg.Server.AGUI) {
		return
	}
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

// middlewares wraps the mux in what every request passes. The body guard
// sits inside the request log (its 408s are logged) and outside auth (a
// refused request's body is drained as well); metrics count what the body
// guard and auth answer too. gRPC calls (A2A's GRPC binding) are logged
// and counted, then go to their own server in front of the rest, which
// authenticates them with the same tokens. Each request's trace span (when
// traces are on) covers the rest. Requests per minute are counted inside
// auth, where the user is known. CORS answers browsers' preflights before
// auth (they carry no token). The route is matched once, by the mux
// (httplog.Routes), and shared.
func (s *Server) middlewares(mux *http.ServeMux, authn *auth.Authenticator) http.Handler {
	cfg := s.Folder.Config
	chain := httpapi.CORS(cfg.Server.AllowedOrigins, s.tracing.Middleware(mux,
		httpapi.BodyGuard(cfg.Server.HTTP.BodyTimeout(), authn.Middleware(
			httpapi.RateLimit(httpapi.RateLimitOptions{Store: s.Store, PerMinute: cfg.Server.Limits.RequestsPerMinute, LimitAnonymous: !authn.Enabled(), Logger: s.log}, httplog.Routes(mux))))))
	return httplog.Middleware(s.log, s.metrics.Middleware(mux, s.a2a.WithGRPC(chain, authn)))
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
