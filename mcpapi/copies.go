package mcpapi

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/harnest/harnest/runtime"
)

// An MCP session lives on no replica: its ID is a token sealed with the
// key every replica shares (runtime.SealToken), for the user who opened it,
// holding what the client said in initialize. Whichever replica a request
// of the session reaches opens the token (another user's, or a forged one,
// does not open: 404, as for an unknown session) and serves the request
// with its own copy of the session, made from the token the first time and
// kept while requests come (closed after SessionIdleTimeout without one).
// A copy holds what the SDK needs in memory; what a call needs that
// another copy holds is relayed (relayconn.go).

// tokenKind is the kind of the sealed session IDs.
const tokenKind = "mcp.session"

// sealedSession is what a session ID holds.
type sealedSession struct {
	Nonce string                `json:"n"` // makes every session's ID its own
	Init  *mcp.InitializeParams `json:"i"`
}

// sessionCopy is this replica's copy of one session.
type sessionCopy struct {
	id, user  string
	nonce     string // the session's name in the store (liveness.go)
	session   *mcp.ServerSession
	transport *mcp.StreamableServerTransport
	conn      *relayConn

	mu      sync.Mutex
	refs    int           // requests being served
	serving chan struct{} // closed when refs falls to 0: ends keepAlive
	timer   *time.Timer   // closes an idle copy; nil once closed
}

// copies are this replica's copies, by session ID.
type copies struct {
	mu   sync.Mutex
	byID map[string]*sessionCopy
}

func (cs *copies) get(id string) *sessionCopy {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.byID[id]
}

// add keeps a copy unless one of the session is there already, which it
// returns instead (two requests made it at once).
func (cs *copies) add(c *sessionCopy) (*sessionCopy, bool) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if old, ok := cs.byID[c.id]; ok {
		return old, false
	}
	cs.byID[c.id] = c
	return c, true
}

func (cs *copies) remove(c *sessionCopy) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.byID[c.id] == c {
		delete(cs.byID, c.id)
	}
}

func (cs *copies) all() []*sessionCopy {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	out := make([]*sessionCopy, 0, len(cs.byID))
	for _, c := range cs.byID {
		out = append(out, c)
	}
	return out
}

// newCopy connects a copy of session id to the MCP server: a new session
// (state nil: its first request is initialize), or one opened elsewhere.
func (d *door) newCopy(ctx context.Context, id, nonce, user string, state *mcp.ServerSessionState) (*sessionCopy, error) {
	c := &sessionCopy{id: id, nonce: nonce, user: user}
	c.conn = newRelayConn(rand.Text()[:12], func(raw json.RawMessage) { d.relay(id, user, raw) })
	c.transport = &mcp.StreamableServerTransport{SessionID: id}
	session, err := d.server.Connect(context.WithoutCancel(ctx), &relayTransport{c.transport, c.conn}, &mcp.ServerSessionOptions{State: state})
	if err != nil {
		return nil, err
	}
	c.session = session
	c.timer = time.AfterFunc(d.opts.SessionIdleTimeout, func() { d.closeCopy(c) })
	go func() { // a copy closed by the SDK (its connection broke) leaves
		_ = session.Wait()
		d.closeCopy(c)
	}()
	return c, nil
}

// serveCopy hands one request to a copy; the copy's idle clock stops
// meanwhile, and the session is kept alive in the store.
func (d *door) serveCopy(w http.ResponseWriter, r *http.Request, c *sessionCopy) {
	c.mu.Lock()
	if c.timer == nil { // closed meanwhile
		c.mu.Unlock()
		sessionNotFound(w)
		return
	}
	if c.refs++; c.refs == 1 {
		c.timer.Stop()
		c.serving = make(chan struct{})
		go d.keepAlive(c.user, c.nonce, c.serving)
	}
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		if c.refs--; c.refs == 0 {
			close(c.serving)
			if c.timer != nil {
				c.timer.Reset(d.opts.SessionIdleTimeout)
			}
		}
		c.mu.Unlock()
	}()
	c.transport.ServeHTTP(w, r)
}

// closeCopy ends this replica's copy (idle, deleted, or broken).
func (d *door) closeCopy(c *sessionCopy) {
	c.mu.Lock()
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
	c.mu.Unlock()
	d.copies.remove(c)
	_ = c.session.Close()
}

// stateOf is the SDK's state of a session opened elsewhere: initialised,
// with what its client said then.
func stateOf(s sealedSession, r *http.Request) *mcp.ServerSessionState {
	version := r.Header.Get("Mcp-Protocol-Version")
	if version == "" && s.Init != nil {
		version = s.Init.ProtocolVersion
	}
	return &mcp.ServerSessionState{InitializeParams: s.Init, InitializedParams: &mcp.InitializedParams{},
		NegotiatedProtocolVersion: version, LogLevel: "info"}
}

// sessionTokens seals and opens session IDs: the runtime's sealer, whose
// key every replica shares.
type sessionTokens interface {
	SealToken(ctx context.Context, kind, user string, v any) (string, error)
	OpenToken(ctx context.Context, token, kind, user string, v any) (bool, error)
}

// tokensOf is the service's sealer, or without a service (a door tested
// alone: one replica) a sealer with a key of its own.
func tokensOf(o Options) sessionTokens {
	if o.Service != nil {
		return o.Service
	}
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	return runtime.NewTokenSealer(func(context.Context) ([]byte, error) { return key, nil })
}
