package a2a

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
)

// downSecrets is a store whose secrets cannot be read.
type downSecrets struct{}

func (downSecrets) SharedSecret(context.Context, string) ([]byte, error) {
	return nil, errors.New("the store is down")
}

// While the key set cannot be read, GET /.well-known/jwks.json answers 503
// with the house error body (httpapi.Fail): JSON, declared as JSON.
func TestJWKSUnavailableIsTheHouseError(t *testing.T) {
	w := httptest.NewRecorder()
	newPushKeys(downSecrets{}).jwksHandler().ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/.well-known/jwks.json", nil))
	want := `{"detail":"The key set is unavailable; retry shortly","code":"store_unavailable"}`
	if w.Code != http.StatusServiceUnavailable || w.Header().Get("Content-Type") != "application/json" || w.Body.String() != want {
		t.Errorf("%d %q %q, want 503 application/json %q", w.Code, w.Header().Get("Content-Type"), w.Body, want)
	}
}
