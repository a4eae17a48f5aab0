package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/harnest/harnest/internal/auth"
	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/store"
)

// RequestsCounter names the store's per-user window of HTTP requests.
const RequestsCounter = "requests"

// RateLimitOptions configure RateLimit.
type RateLimitOptions struct {
	// Store holds the per-user counts every replica shares.
	Store store.UserWindows
	// PerMinute bounds one user's requests in each minute (fixed windows
	// from the whole minute); 0 limits nothing.
	PerMinute int
	// LimitAnonymous counts the anonymous user's requests too: set it when
	// auth is off (every caller is that user then). With auth on, anonymous
	// requests are the public routes, which are not limited here (the
	// relay's participants and /live's sockets prove who they are
	// further in, and the relay has its own buckets).
	LimitAnonymous bool
	// Logger reports a store that does not answer; optional.
	Logger *slog.Logger
	// Now is the clock (tests); default time.Now.
	Now func() time.Time
}

// RateLimit counts each request of the caller (the principal auth put in
// the context, so it sits inside auth) against the caller's requests per
// minute, shared by every replica through the store. A request past the
// limit is answered 429 with Retry-After and {detail, code: rate_limited};
// it is not counted. Requests of the anonymous user pass unless
// LimitAnonymous is set. Probes (/healthz, /readyz, /metrics) and CORS
// preflights are never limited. When the store does not answer, the
// request goes through: the store's own failure is reported where the
// request needs it.
func RateLimit(o RateLimitOptions, next http.Handler) http.Handler {
	if o.PerMinute <= 0 {
		return next
	}
	now, log := o.Now, o.Logger
	if now == nil {
		now = time.Now
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if unlimited(r) {
			next.ServeHTTP(w, r)
			return
		}
		user := auth.From(r.Context()).UserID
		if user == runtime.AnonymousUser && !o.LimitAnonymous {
			next.ServeHTTP(w, r)
			return
		}
		window := store.UserWindow{User: user, Name: RequestsCounter, Limit: o.PerMinute, Window: time.Minute}
		ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
		ok, wait, err := o.Store.TakeUserWindow(ctx, window, now())
		cancel()
		if err != nil {
			log.Warn("cannot count a request against its user's requests per minute; letting it through", "err", err)
		}
		if err != nil || ok {
			next.ServeHTTP(w, r)
			return
		}
		WriteError(w, runtime.RateLimitedError(wait,
			"You have sent %d requests this minute, the most allowed per minute; retry %s",
			o.PerMinute, runtime.FormatWait(wait)))
	})
}

// unlimited reports whether a request is never rate limited: liveness,
// readiness and metrics probes, and CORS preflights.
func unlimited(r *http.Request) bool {
	if r.Method == http.MethodOptions {
		return true
	}
	switch r.URL.Path {
	case "/healthz", "/readyz", "/metrics":
		return r.Method == http.MethodGet || r.Method == http.MethodHead
	}
	return false
}
