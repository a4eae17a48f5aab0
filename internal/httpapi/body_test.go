package httpapi

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestBodyGuardGivesTheRequestItsBodyBack: the handler reads the guarded
// body from the request it was given, and the request has its own body
// again once the handler returned, or panicked.
func TestBodyGuardGivesTheRequestItsBodyBack(t *testing.T) {
	for _, panics := range []bool{false, true} {
		var inside io.ReadCloser
		h := BodyGuard(time.Second, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			inside = r.Body
			if b, err := io.ReadAll(r.Body); err != nil || string(b) != `{"a":1}` {
				t.Errorf("the handler read %q, %v", b, err)
			}
			if panics {
				panic(http.ErrAbortHandler)
			}
		}))
		r := httptest.NewRequest(http.MethodPost, "/x", strings.NewReader(`{"a":1}`))
		own := r.Body
		func() {
			defer func() { _ = recover() }()
			h.ServeHTTP(httptest.NewRecorder(), r)
		}()
		if _, guarded := inside.(*guardedBody); !guarded {
			t.Errorf("panics %v: the handler's body is a %T, want the guarded body", panics, inside)
		}
		if r.Body != own {
			t.Errorf("panics %v: after the handler the request's body is %T, want its own", panics, r.Body)
		}
	}
}
