package mcpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/harnest/harnest/internal/httpapi"
)

// Whether a session lives is in the store (Options.Sessions), under the
// nonce of its sealed ID: put when it is initialised, touched by every
// request that reaches any replica (and, while a request is served, every
// third of the idle timeout, so that a long call or an open stream keeps
// it), deleted by DELETE. A session idle for SessionIdleTimeout, or
// deleted, so ends on every replica: the next request of it gets 404, and
// its client initialises a new one.

// storeTimeout bounds one liveness call.
const storeTimeout = 5 * time.Second

// touch reports whether the session still lives, keeping it so for
// another idle timeout. A store that does not answer answers the request
// (503) and says false.
func (d *door) touch(w http.ResponseWriter, ctx context.Context, user, nonce string) bool {
	ctx, cancel := context.WithTimeout(ctx, storeTimeout)
	defer cancel()
	alive, err := d.opts.Sessions.TouchMCPSession(ctx, user, nonce, d.opts.SessionIdleTimeout)
	if err != nil {
		storeUnavailable(w)
		return false
	}
	if !alive {
		sessionNotFound(w)
	}
	return alive
}

// keepAlive touches the session every third of the idle timeout until
// stop is closed (a request that lasts).
func (d *door) keepAlive(user, nonce string, stop <-chan struct{}) {
	tick := time.NewTicker(d.opts.SessionIdleTimeout / 3)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
			ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
			_, _ = d.opts.Sessions.TouchMCPSession(ctx, user, nonce, d.opts.SessionIdleTimeout)
			cancel()
		}
	}
}

// storeUnavailable answers a request that needs the store when it does
// not answer.
func storeUnavailable(w http.ResponseWriter) {
	w.Header().Set("Retry-After", "1")
	httpapi.Fail(w, http.StatusServiceUnavailable, "store_unavailable", "The store does not answer; retry shortly")
}
