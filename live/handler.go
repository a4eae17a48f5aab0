package live

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/harnest/harnest/internal/auth"
	"github.com/harnest/harnest/internal/defaults"
	"github.com/harnest/harnest/internal/httpapi"
	"github.com/harnest/harnest/runtime"
)

// Subprotocol is the WebSocket subprotocol the server selects. Browsers
// offer it together with "bearer.<token>" to carry a bearer token.
const Subprotocol = "harnest.live"

// TokenCookie is the same-origin cookie whose value is a bearer token.
const TokenCookie = "harnest_token"

// Close codes beyond RFC 6455's, as the reference uses them.
const (
	CloseUnauthorized = 4401
	CloseForbidden    = 4403
)

// MaxIdleFrames is how many frames a connection may send while no response
// runs; the next one closes it with 1008 "Frame limit exceeded".
const MaxIdleFrames = 1024

// Defaults of Options.
const (
	DefaultMaxFrameBytes = 1 << 20
	DefaultPingInterval  = 30 * time.Second
	DefaultWriteTimeout  = 10 * time.Second
	DefaultSendQueue     = 128
)

// closeGrace is how long the server waits for the client's answer to its
// close frame before it drops the connection.
const closeGrace = time.Second

// settleTimeout bounds how long a closing connection waits for its
// response's receipt to be recorded.
const settleTimeout = 30 * time.Second

// Options configure the /live handler.
type Options struct {
	Service *runtime.Service
	// Auth resolves credentials; nil or without tokens, every socket is
	// the anonymous principal.
	Auth *auth.Authenticator
	// MaxFrameBytes bounds one incoming message (close 1009 beyond it);
	// default 1 MiB, as limits.maxRequestBytes.
	MaxFrameBytes int64
	// AllowedOrigins are browser origins (scheme://host[:port]) that may
	// connect besides the server's own; "*" allows every origin.
	AllowedOrigins []string
	Logger         *slog.Logger
	// PingInterval is how often the server pings; a client that answers
	// nothing (no pong, no frame) for two intervals is disconnected.
	PingInterval time.Duration
	// WriteTimeout bounds every write to a socket.
	WriteTimeout time.Duration
	// SendQueue is how many of a response's frames may wait for the
	// socket; beyond it the response waits, and a client that takes
	// nothing for WriteTimeout is disconnected and its response cancelled.
	SendQueue int
}

// Handler serves WS /live. It is an http.Handler; Shutdown closes its
// sockets (http.Server.Shutdown does not see hijacked connections).
type Handler struct {
	svc          *runtime.Service
	auth         *auth.Authenticator
	origins      []string
	log          *slog.Logger
	maxFrame     int64
	pingInterval time.Duration
	readTimeout  time.Duration
	writeTimeout time.Duration
	sendQueue    int
	upgrader     websocket.Upgrader

	mu     sync.Mutex
	conns  map[*conn]struct{}
	closed bool
	wg     sync.WaitGroup // serving connections
}

var _ http.Handler = (*Handler)(nil)

// writeBuffers are shared by every socket: an idle socket holds none.
var writeBuffers sync.Pool

// New returns the /live handler. It authenticates each socket itself (the
// HTTP auth middleware must let GET /live through): from an Authorization
// bearer header, a "bearer.<token>" subprotocol, or the harnest_token
// cookie, in that order; the first credential present decides.
func New(o Options) *Handler {
	h := &Handler{
		svc: o.Service, auth: o.Auth, origins: o.AllowedOrigins, log: o.Logger,
		maxFrame: o.MaxFrameBytes, pingInterval: o.PingInterval, writeTimeout: o.WriteTimeout, sendQueue: o.SendQueue,
		conns: map[*conn]struct{}{},
	}
	h.log = defaults.Logger(h.log)
	h.maxFrame = defaults.Positive(h.maxFrame, DefaultMaxFrameBytes)
	h.pingInterval = defaults.Positive(h.pingInterval, DefaultPingInterval)
	h.writeTimeout = defaults.Positive(h.writeTimeout, DefaultWriteTimeout)
	h.sendQueue = defaults.Positive(h.sendQueue, DefaultSendQueue)
	h.readTimeout = 2 * h.pingInterval
	h.upgrader = websocket.Upgrader{
		HandshakeTimeout: h.writeTimeout,
		WriteBufferPool:  &writeBuffers,
		Subprotocols:     []string{Subprotocol},
		// The origin is checked by the handler, which accepts and then
		// closes with 4403 so that browsers see why.
		CheckOrigin: func(*http.Request) bool { return true },
		Error:       handshakeError,
	}
	return h
}

// Disabled answers every handshake by accepting it and closing with 1008
// "Live connections are disabled", as the reference does when live is off;
// a plain HTTP request gets 404.
func Disabled() http.Handler {
	up := websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }, Error: handshakeError}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !websocket.IsWebSocketUpgrade(r) {
			httpapi.Fail(w, http.StatusNotFound, "live_disabled", msgDisabled)
			return
		}
		ws, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		closeNow(ws, websocket.ClosePolicyViolation, msgDisabled, DefaultWriteTimeout)
	})
}

// ServeHTTP upgrades the request and returns; the socket is served until
// it closes (Shutdown waits for every socket).
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !websocket.IsWebSocketUpgrade(r) {
		w.Header().Set("Upgrade", "websocket")
		httpapi.Fail(w, http.StatusUpgradeRequired, "websocket_required", "GET /live is a WebSocket endpoint: send an upgrade request")
		return
	}
	originOK := originAllowed(r, h.origins)
	p, credential := h.principal(r)
	ws, err := h.upgrader.Upgrade(w, r, nil)
	if err != nil {
		return // the upgrader answered
	}
	switch {
	case !originOK:
		closeNow(ws, CloseForbidden, msgOriginRejected, h.writeTimeout)
		return
	case credential == credentialMissing:
		closeNow(ws, CloseUnauthorized, msgAuthRequired, h.writeTimeout)
		return
	case credential == credentialInvalid:
		closeNow(ws, CloseUnauthorized, msgInvalidToken, h.writeTimeout)
		return
	}
	c := newConn(h, ws, p)
	if !h.track(c) {
		closeNow(ws, websocket.CloseGoingAway, msgShuttingDown, h.writeTimeout)
		return
	}
	// The socket is served by its own goroutine, so that net/http lets go
	// of the request and its buffers: an idle socket costs little.
	go func() {
		defer h.untrack(c)
		c.serve()
	}()
}

func (h *Handler) track(c *conn) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return false
	}
	h.conns[c] = struct{}{}
	h.wg.Add(1)
	return true
}

func (h *Handler) untrack(c *conn) {
	h.mu.Lock()
	delete(h.conns, c)
	h.mu.Unlock()
	h.wg.Done()
}

// Shutdown stops accepting sockets and closes the open ones with 1001:
// idle ones at once, the others when their response ends. When ctx ends
// first, the remaining responses are cancelled (and recorded) and their
// sockets closed; Shutdown returns once every socket is gone.
func (h *Handler) Shutdown(ctx context.Context) error {
	h.mu.Lock()
	h.closed = true
	conns := make([]*conn, 0, len(h.conns))
	for c := range h.conns {
		conns = append(conns, c)
	}
	h.mu.Unlock()
	for _, c := range conns {
		c.goAway(false)
	}
	done := make(chan struct{})
	go func() { h.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
	}
	for _, c := range conns {
		c.goAway(true)
	}
	t := time.NewTimer(closeGrace + time.Second)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		for _, c := range conns {
			c.drop()
		}
		<-done
	}
	return ctx.Err()
}

// Conns is the number of open sockets.
func (h *Handler) Conns() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.conns)
}

// closeNow sends a close frame on a socket that never started, waits a
// moment for the client's answer, and drops the connection.
func closeNow(ws *websocket.Conn, code int, reason string, timeout time.Duration) {
	_ = ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, reason), time.Now().Add(timeout))
	_ = ws.SetReadDeadline(time.Now().Add(closeGrace))
	ws.SetReadLimit(4096)
	for i := 0; i < 16; i++ { // discard until the client's close frame
		if _, _, err := ws.ReadMessage(); err != nil {
			break
		}
	}
	_ = ws.Close()
}

// handshakeError answers a failed upgrade with the API's error body.
func handshakeError(w http.ResponseWriter, _ *http.Request, status int, reason error) {
	httpapi.Fail(w, status, "websocket_handshake", reason.Error())
}
