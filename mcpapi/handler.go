package mcpapi

import (
	"context"
	"log/slog"
	"net/http"
	"sync/atomic"
	"time"

	mcpauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/harnest/harnest/internal/auth"
	"github.com/harnest/harnest/internal/defaults"
	"github.com/harnest/harnest/internal/httpapi"
	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/store"
)

// Options configure the MCP door.
type Options struct {
	Service     *runtime.Service
	AgentName   string // metadata.name: the tool's name
	DisplayName string
	Description string
	Logger      *slog.Logger
	// PublicBaseURL is where clients reach the server behind a proxy: its
	// host is allowed besides loopback names on a loopback listener (the
	// SDK's DNS rebinding protection refuses every other name there).
	PublicBaseURL string
	// MaxBodyBytes bounds one HTTP request body (default: the SDK's 4 MiB).
	MaxBodyBytes int
	// SessionIdleTimeout closes an MCP session that received no request
	// for this long (default DefaultSessionIdleTimeout); its client starts
	// a new one.
	SessionIdleTimeout time.Duration
	// MaxSessions bounds the MCP sessions this replica holds (default
	// DefaultMaxSessions); MaxSessionsPerUser those of one user (default
	// DefaultMaxSessionsPerUser). Past either, opening a session is
	// refused (sessions.go).
	MaxSessions        int
	MaxSessionsPerUser int
	// Sessions keeps which MCP sessions live (required), so that an idle
	// or deleted session ends on every replica (liveness.go).
	Sessions store.MCPSessions
}

// The defaults of the session bounds (see doc.go for why).
const (
	DefaultSessionIdleTimeout = 10 * time.Minute
	DefaultMaxSessions        = 1000
	DefaultMaxSessionsPerUser = 20
)

// door is the /mcp handler: the SDK's Streamable HTTP handler behind the
// step that tells the SDK who the caller is.
type door struct {
	opts   Options
	log    *slog.Logger
	hosts  hostGuard
	server *mcp.Server
	book   *sessionBook  // whose each session is, and how many
	copies copies        // this replica's copies of sessions (copies.go)
	tokens sessionTokens // seals the session IDs (copies.go)
	// sessionless is the SDK's own handler, for a POST without a session
	// that is no initialize: it answers it and keeps no session.
	sessionless http.Handler
	closed      atomic.Bool // Close was called: new requests are refused
	// sdk serves requests that carry no bearer token (servers without
	// auth: every caller is anonymous).
	sdk http.Handler
	// withUser serves requests with a bearer token: the SDK's own bearer
	// middleware puts the caller's user in the request as its TokenInfo,
	// which binds a new MCP session to that user, refuses the session to
	// any other user, and reaches the tool handler as req.Extra.TokenInfo.
	withUser http.Handler
}

// New returns the /mcp handler. Requests reach it through the auth
// middleware: auth.From(r.Context()) is the caller. The handler is also an
// io.Closer: Close ends every MCP session (their open streams included), for
// a server that shuts down.
func New(o Options) http.Handler {
	log := o.Logger
	log = defaults.Logger(log)
	o.SessionIdleTimeout = defaults.Positive(o.SessionIdleTimeout, DefaultSessionIdleTimeout)
	o.MaxSessions = defaults.Positive(o.MaxSessions, DefaultMaxSessions)
	o.MaxSessionsPerUser = defaults.Positive(o.MaxSessionsPerUser, DefaultMaxSessionsPerUser)
	o.MaxBodyBytes = defaults.Positive(o.MaxBodyBytes, mcp.DefaultMaxRequestBodyBytes)
	d := &door{opts: o, log: log, hosts: newHostGuard(o.PublicBaseURL), copies: copies{byID: map[string]*sessionCopy{}}, tokens: tokensOf(o)}
	d.server = d.newServer()
	d.book = newSessionBook(o.MaxSessions, o.MaxSessionsPerUser, d.server)
	if o.Service != nil {
		o.Service.OnDoorMessage(doorName, d.onRelayed)
	}
	d.sessionless = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return d.server }, &mcp.StreamableHTTPOptions{
		Logger: log, SessionTimeout: time.Second, MaxRequestBodyBytes: int64(o.MaxBodyBytes), DisableLocalhostProtection: true,
	})
	sessions := http.HandlerFunc(d.serveMCP) // serve.go
	d.sdk = sessions
	d.withUser = mcpauth.RequireBearerToken(callerToken, &mcpauth.RequireBearerTokenOptions{AllowMissingExpiration: true})(sessions)
	return d
}

// ServeHTTP hands the request to the SDK with its caller attached.
func (d *door) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if d.closed.Load() {
		httpapi.Fail(w, http.StatusServiceUnavailable, "server_shutdown", "The server is shutting down; retry on another replica")
		return
	}
	if !d.hosts.allows(r) {
		httpapi.Fail(w, http.StatusForbidden, "invalid_host",
			"The Host header names neither this machine nor server.publicBaseURL's host; MCP refuses it (DNS rebinding protection)")
		return
	}
	p := auth.From(r.Context())
	if p.UserID == "" {
		// Not through the auth middleware: nobody, who may use nothing.
		httpapi.Fail(w, http.StatusUnauthorized, "unauthorized", "Authentication required: send Authorization: Bearer <token>")
		return
	}
	next := d.sdk
	if _, has := auth.BearerToken(r); has {
		next = d.withUser
	} else if p != runtime.Anonymous {
		// The tool handler takes a request without a token for the
		// anonymous user; any other caller must say who they are with one.
		httpapi.Fail(w, http.StatusUnauthorized, "unauthorized", "Authentication required: send Authorization: Bearer <token>")
		return
	}
	next.ServeHTTP(w, r)
}

// Close ends every MCP session: their streams (the standalone GET stream a
// client keeps open included) end, so that an HTTP server's shutdown does
// not wait for them. Requests that come later are refused with 503.
func (d *door) Close() error {
	d.closed.Store(true)
	for _, c := range d.copies.all() {
		d.closeCopy(c)
	}
	return nil
}

// callerToken is the SDK's token verifier. The auth middleware has already
// checked the token and resolved the caller; this hands that user to the
// SDK (a token the middleware let through stands for auth.From's user, or
// for the anonymous user on a server without tokens).
func callerToken(_ context.Context, _ string, r *http.Request) (*mcpauth.TokenInfo, error) {
	p := auth.From(r.Context())
	if p.UserID == "" {
		return nil, mcpauth.ErrInvalidToken
	}
	return &mcpauth.TokenInfo{UserID: p.UserID}, nil
}

// callerOf is the user a tool call runs for: the user of the HTTP request
// that carried the call, never the one that opened the session. A request
// without a token reaches the SDK only for the anonymous user (ServeHTTP).
func callerOf(req *mcp.CallToolRequest) runtime.Principal {
	if req.Extra != nil && req.Extra.TokenInfo != nil && req.Extra.TokenInfo.UserID != "" {
		return runtime.Principal{UserID: req.Extra.TokenInfo.UserID}
	}
	return runtime.Anonymous
}
