package a2aremote

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/harnest/harnest/internal/netguard"
	"github.com/harnest/harnest/internal/tracing"
)

const (
	// maxRedirects is how many redirects one request may follow, each
	// checked by the address guard like the request itself.
	maxRedirects = 3
	// maxBodyBytes bounds one response body from the remote agent: a
	// JSON answer, or a whole SSE stream of one turn.
	maxBodyBytes = 16 << 20
	// maxCardBytes bounds the agent card.
	maxCardBytes = 1 << 20
)

// policy is the address guard's policy for the configured allowHosts:
// https for public hosts, plain http only to a listed loopback host.
func policy(o Options) netguard.Policy {
	return netguard.Policy{
		AllowHosts:        o.Config.AllowHosts,
		AllowHTTPLoopback: true, // still only for hosts of AllowHosts whose addresses are all loopback
		MaxRedirects:      maxRedirects,
		Resolver:          o.Resolver,
		Dial:              o.Dial,
		TLSConfig:         o.TLSConfig,
	}
}

// httpClient is the one client every request to the remote agent goes
// through: the address guard's client, with every response body bounded in
// size and HTTP statuses noted for the error mapping.
func httpClient(p netguard.Policy, timeout time.Duration) *http.Client {
	c := netguard.Client(p, timeout)
	c.Transport = &boundedTransport{base: tracing.Transport(c.Transport)} // traceparent on every request
	return c
}

// boundedTransport cuts response bodies at maxBodyBytes and records the
// status of a failed exchange in the request's callNote.
type boundedTransport struct {
	base http.RoundTripper
}

func (t *boundedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if note := noteFrom(req.Context()); note != nil && resp.StatusCode >= 400 {
		note.setStatus(resp.StatusCode)
	}
	resp.Body = &limitedBody{rc: resp.Body, left: maxBodyBytes}
	return resp, nil
}

// CloseIdleConnections lets http.Client.CloseIdleConnections reach the
// guarded transport's pool.
func (t *boundedTransport) CloseIdleConnections() {
	if c, ok := t.base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// limitedBody fails a read past its limit with netguard.ErrTooLarge.
type limitedBody struct {
	rc   io.ReadCloser
	left int64
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, fmt.Errorf("%w: more than %d bytes", netguard.ErrTooLarge, maxBodyBytes)
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *limitedBody) Close() error { return b.rc.Close() }

// callNote collects what the transport saw of one call that the client
// library does not report in a typed way (the JSON-RPC transport turns an
// HTTP 401 into a plain string error).
type callNote struct {
	mu     sync.Mutex
	status int
}

func (n *callNote) setStatus(s int) {
	n.mu.Lock()
	n.status = s
	n.mu.Unlock()
}

func (n *callNote) lastStatus() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.status
}

type noteKey struct{}

// withNote returns ctx carrying a fresh callNote.
func withNote(ctx context.Context) (context.Context, *callNote) {
	n := &callNote{}
	return context.WithValue(ctx, noteKey{}, n), n
}

func noteFrom(ctx context.Context) *callNote {
	n, _ := ctx.Value(noteKey{}).(*callNote)
	return n
}
