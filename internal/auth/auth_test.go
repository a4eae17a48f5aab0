package auth

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/harnest/harnest/runtime"
)

var testTokens = []Token{{Token: "tok-alice-0123456789", User: "alice"}, {Token: "tok-bob-0123456789", User: "bob"}}

func TestResolveWithoutTokensIsAnonymous(t *testing.T) {
	a := New(nil, nil)
	if a.Enabled() {
		t.Fatal("enabled without tokens")
	}
	for _, tok := range []string{"", "anything", "tok-alice-0123456789"} {
		p, ok := a.Resolve(tok)
		if !ok || p != runtime.Anonymous {
			t.Errorf("Resolve(%q) = %+v, %v", tok, p, ok)
		}
	}
}

func TestResolve(t *testing.T) {
	a := New(testTokens, nil)
	if !a.Enabled() {
		t.Fatal("not enabled")
	}
	tests := []struct {
		token string
		user  string
		ok    bool
	}{
		{"tok-alice-0123456789", "alice", true},
		{"tok-bob-0123456789", "bob", true},
		{"", "", false},
		{"tok-alice-012345678", "", false},   // prefix
		{"tok-alice-01234567890", "", false}, // longer
		{"TOK-ALICE-0123456789", "", false},  // case matters
		{" tok-alice-0123456789", "", false},
		{"wrong", "", false},
	}
	for _, tt := range tests {
		p, ok := a.Resolve(tt.token)
		if ok != tt.ok || p.UserID != tt.user {
			t.Errorf("Resolve(%q) = %+v, %v; want %q, %v", tt.token, p, ok, tt.user, tt.ok)
		}
	}
}

func TestBearerToken(t *testing.T) {
	tests := []struct {
		name   string
		header []string
		token  string
		ok     bool
	}{
		{"missing", nil, "", false},
		{"bearer", []string{"Bearer abc"}, "abc", true},
		{"lower case scheme", []string{"bearer abc"}, "abc", true},
		{"mixed case scheme", []string{"BeArEr abc"}, "abc", true},
		{"extra spaces trimmed", []string{"Bearer   abc  "}, "abc", true},
		{"basic", []string{"Basic YWxhZGRpbjpvcGVuc2VzYW1l"}, "", false},
		{"scheme only", []string{"Bearer"}, "", false},
		{"empty token", []string{"Bearer "}, "", false},
		{"blank token", []string{"Bearer    "}, "", false},
		{"no space", []string{"Bearerabc"}, "", false},
		{"empty header", []string{""}, "", false},
		{"token with inner space kept", []string{"Bearer a b"}, "a b", true},
		{"first header wins", []string{"Bearer one", "Bearer two"}, "one", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			for _, h := range tt.header {
				r.Header.Add("Authorization", h)
			}
			token, ok := BearerToken(r)
			if token != tt.token || ok != tt.ok {
				t.Errorf("BearerToken = %q, %v; want %q, %v", token, ok, tt.token, tt.ok)
			}
		})
	}
}

// serve runs the middleware over one request and reports the principal the
// handler saw (nil when it was not called).
func serve(a *Authenticator, path, authorization string) (*httptest.ResponseRecorder, *runtime.Principal) {
	var seen *runtime.Principal
	h := a.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := From(r.Context())
		seen = &p
		w.WriteHeader(http.StatusNoContent)
	}))
	r := httptest.NewRequest(http.MethodGet, path, nil)
	if authorization != "" {
		r.Header.Set("Authorization", authorization)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w, seen
}

func publicPaths(r *http.Request) bool { return r.URL.Path == "/health" }

func TestMiddleware(t *testing.T) {
	a := New(testTokens, publicPaths)
	tests := []struct {
		name, path, auth string
		status           int
		user             string
		code             string
	}{
		{"private with token", "/v1/sessions", "Bearer tok-alice-0123456789", http.StatusNoContent, "alice", ""},
		{"private lower-case scheme", "/v1/sessions", "bearer tok-bob-0123456789", http.StatusNoContent, "bob", ""},
		{"public without token", "/health", "", http.StatusNoContent, runtime.AnonymousUser, ""},
		{"public with wrong token", "/health", "Bearer nope", http.StatusNoContent, runtime.AnonymousUser, ""},
		{"public with valid token", "/health", "Bearer tok-bob-0123456789", http.StatusNoContent, "bob", ""},
		{"private without token", "/v1/sessions", "", http.StatusUnauthorized, "", "unauthorized"},
		{"private with basic auth", "/v1/sessions", "Basic dG9rLWFsaWNlLTAxMjM0NTY3ODk=", http.StatusUnauthorized, "", "unauthorized"},
		{"private with wrong token", "/v1/sessions", "Bearer wrong-secret-token-xyz", http.StatusUnauthorized, "", "invalid_token"},
		{"private with empty bearer", "/v1/sessions", "Bearer ", http.StatusUnauthorized, "", "unauthorized"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, seen := serve(a, tt.path, tt.auth)
			if w.Code != tt.status {
				t.Fatalf("status %d, want %d", w.Code, tt.status)
			}
			if tt.status != http.StatusUnauthorized {
				if seen == nil || seen.UserID != tt.user {
					t.Errorf("handler saw %+v, want user %q", seen, tt.user)
				}
				return
			}
			if seen != nil {
				t.Error("handler ran for an unauthorized request")
			}
			if got := w.Header().Get("WWW-Authenticate"); !strings.HasPrefix(got, "Bearer") {
				t.Errorf("WWW-Authenticate %q", got)
			}
			if ct := w.Header().Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
			var body map[string]any
			if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
				t.Fatalf("body %q: %v", w.Body, err)
			}
			if len(body) != 2 || body["code"] != tt.code {
				t.Errorf("body %v, want {detail, code=%s}", body, tt.code)
			}
			if d, _ := body["detail"].(string); d == "" {
				t.Errorf("empty detail in %v", body)
			}
			// Whatever credential was presented never comes back.
			if _, cred, _ := strings.Cut(tt.auth, " "); cred != "" && strings.Contains(w.Body.String(), cred) {
				t.Errorf("401 body %q echoes the credential", w.Body)
			}
		})
	}
}

func TestMiddlewareWithoutPublicFunc(t *testing.T) {
	w, seen := serve(New(testTokens, nil), "/health", "")
	if w.Code != http.StatusUnauthorized || seen != nil {
		t.Errorf("status %d, handler saw %+v", w.Code, seen)
	}
}

func TestMiddlewareDisabledIsAnonymous(t *testing.T) {
	for _, h := range []string{"", "Bearer whatever", "Basic x"} {
		w, seen := serve(New(nil, nil), "/v1/sessions", h)
		if w.Code != http.StatusNoContent || seen == nil || *seen != runtime.Anonymous {
			t.Errorf("auth %q: status %d, principal %+v", h, w.Code, seen)
		}
	}
}

func TestFromWithoutMiddleware(t *testing.T) {
	if p := From(context.Background()); p.UserID != "" {
		t.Errorf("From(empty) = %+v", p)
	}
	if p := From(With(context.Background(), runtime.Principal{UserID: "u"})); p.UserID != "u" {
		t.Errorf("From(With(u)) = %+v", p)
	}
}

func TestWithAnonymousIsWithAnonymous(t *testing.T) {
	if p := From(withAnonymous(context.Background())); p != runtime.Anonymous {
		t.Errorf("From(withAnonymous) = %+v, want %+v", p, runtime.Anonymous)
	}
}
