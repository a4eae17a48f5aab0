package httpapi

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/harnest/harnest/internal/auth"
	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/store/memstore"
)

// TestRateLimit counts requests per user and minute on a real in-process
// store with a fixed clock: the fourth request of a minute is refused
// until the minute ends, with Retry-After and a sentence.
func TestRateLimit(t *testing.T) {
	st := memstore.New(memstore.Options{})
	t.Cleanup(func() { st.Close() })
	now := time.Date(2026, 3, 1, 12, 0, 20, 0, time.UTC) // 40 s before the minute ends
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	h := RateLimit(RateLimitOptions{Store: st, PerMinute: 3, Now: func() time.Time { return now }}, ok)
	send := func(user, method, path string) *httptest.ResponseRecorder {
		t.Helper()
		req := httptest.NewRequest(method, path, nil)
		if user != "" {
			req = req.WithContext(auth.With(req.Context(), runtime.Principal{UserID: user}))
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	for i := 0; i < 3; i++ {
		if rec := send("alice", "GET", "/sessions"); rec.Code != http.StatusNoContent {
			t.Fatalf("request %d: %d", i+1, rec.Code)
		}
	}
	rec := send("alice", "POST", "/responses")
	var body ErrorBody
	_ = json.Unmarshal(rec.Body.Bytes(), &body)
	if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") != "40" ||
		body.Code != "rate_limited" || !strings.Contains(body.Detail, "3 requests this minute") || !strings.Contains(body.Detail, "retry in 40 seconds") {
		t.Fatalf("the fourth request: %d, Retry-After %q, %+v", rec.Code, rec.Header().Get("Retry-After"), body)
	}
	if rec := send("bob", "GET", "/sessions"); rec.Code != http.StatusNoContent {
		t.Fatalf("another user was limited: %d", rec.Code)
	}
	for _, probe := range []struct{ method, path string }{{"GET", "/healthz"}, {"GET", "/readyz"}, {"GET", "/metrics"}, {"OPTIONS", "/responses"}} {
		if rec := send("alice", probe.method, probe.path); rec.Code != http.StatusNoContent {
			t.Fatalf("%s %s was limited: %d", probe.method, probe.path, rec.Code)
		}
	}
	for i := 0; i < 5; i++ { // with auth on, anonymous requests are public ones: not limited here
		if rec := send(runtime.AnonymousUser, "GET", "/agent"); rec.Code != http.StatusNoContent {
			t.Fatalf("anonymous request %d was limited: %d", i+1, rec.Code)
		}
	}
	now = now.Add(40 * time.Second)
	if rec := send("alice", "GET", "/sessions"); rec.Code != http.StatusNoContent {
		t.Fatalf("a request in the next minute: %d", rec.Code)
	}

	anon := RateLimit(RateLimitOptions{Store: st, PerMinute: 1, LimitAnonymous: true, Now: func() time.Time { return now }}, ok)
	codes := []int{}
	for i := 0; i < 2; i++ {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("GET", "/agent", nil)
		anon.ServeHTTP(rec, req.WithContext(auth.With(req.Context(), runtime.Anonymous)))
		codes = append(codes, rec.Code)
	}
	if codes[0] != http.StatusNoContent || codes[1] != http.StatusTooManyRequests {
		t.Fatalf("without auth the anonymous user is limited: got %v", codes)
	}
	none, rec2 := RateLimit(RateLimitOptions{}, ok), httptest.NewRecorder() // 0: no limit, no store asked
	none.ServeHTTP(rec2, httptest.NewRequest("GET", "/sessions", nil))
	if rec2.Code != http.StatusNoContent {
		t.Fatalf("with no limit: %d", rec2.Code)
	}
}
