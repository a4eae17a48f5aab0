package auth

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwa"
)

const testSecret = "an-hs256-secret-of-at-least-32-bytes!!"

// jwtAuthenticator is an Authenticator with the static test tokens and a
// verifier of the test identity provider.
func jwtAuthenticator(t *testing.T, cfg JWTConfig) *Authenticator {
	t.Helper()
	if cfg.Issuer == "" {
		cfg.Issuer = "https://idp.test"
	}
	if cfg.Audience == "" {
		cfg.Audience = "harnest"
	}
	if cfg.Now == nil {
		cfg.Now = func() time.Time { return testNow }
	}
	cfg.Leeway = 60 * time.Second
	j, err := NewJWT(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return New(testTokens, nil, WithJWT(j))
}

// call sends token through the middleware and returns the status, the
// detail of a refusal and the user the handler saw.
func call(t *testing.T, a *Authenticator, token string) (int, string, string) {
	t.Helper()
	var user string
	h := a.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user = From(r.Context()).UserID
	}))
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, "/responses", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	h.ServeHTTP(rec, req)
	var body struct{ Detail, Code string }
	if rec.Code != http.StatusOK {
		if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
			t.Fatalf("401 body %q: %v", rec.Body, err)
		}
		if body.Code != "invalid_token" || rec.Header().Get("WWW-Authenticate") == "" {
			t.Errorf("refusal code %q, WWW-Authenticate %q", body.Code, rec.Header().Get("WWW-Authenticate"))
		}
	}
	return rec.Code, body.Detail, user
}

func TestJWTAcceptedForEachAlgorithm(t *testing.T) {
	rsaKey := newSigningKey(t, "rsa-1", jwa.RS256())
	ecKey := newSigningKey(t, "ec-1", jwa.ES256())
	edKey := newSigningKey(t, "ed-1", jwa.EdDSA())
	idp := newJWKSServer(t, rsaKey, ecKey, edKey)
	a := jwtAuthenticator(t, JWTConfig{JWKSURL: idp.url, AllowHosts: []string{idp.host}, HS256Secret: []byte(testSecret)})
	tokens := map[string]string{
		"RS256":  rsaKey.sign(t, claims("rita", nil)),
		"ES256":  ecKey.sign(t, claims("erin", nil)),
		"EdDSA":  edKey.sign(t, claims("eddy", nil)),
		"HS256":  signWith(t, jwa.HS256(), []byte(testSecret), "", claims("hana", nil)),
		"static": "tok-alice-0123456789",
	}
	want := map[string]string{"RS256": "jwt:rita", "ES256": "jwt:erin", "EdDSA": "jwt:eddy", "HS256": "jwt:hana", "static": "alice"}
	for name, tok := range tokens {
		code, detail, user := call(t, a, tok)
		if code != http.StatusOK || user != want[name] {
			t.Errorf("%s: %d %q, user %q; want 200 and %q", name, code, detail, user, want[name])
		}
	}
	if n := idp.fetches.Load(); n != 1 {
		t.Errorf("the JWKS was fetched %d times, want once", n)
	}
}

func TestJWTRefusals(t *testing.T) {
	rsaKey := newSigningKey(t, "rsa-1", jwa.RS256())
	edKey := newSigningKey(t, "ed-1", jwa.EdDSA())
	stranger := newSigningKey(t, "rsa-1", jwa.RS256()) // same kid, another key
	unpublished := newSigningKey(t, "rsa-9", jwa.RS256())
	idp := newJWKSServer(t, rsaKey, edKey)
	a := jwtAuthenticator(t, JWTConfig{JWKSURL: idp.url, AllowHosts: []string{idp.host}})
	hour := time.Hour
	tests := []struct {
		name, token, want string
	}{
		{"bad signature", stranger.sign(t, claims("mallory", nil)), "signature does not verify"},
		{"wrong issuer", rsaKey.sign(t, claims("u", map[string]any{"iss": "https://evil.test"})), "issuer (iss)"},
		{"wrong audience", rsaKey.sign(t, claims("u", map[string]any{"aud": "another-app"})), "audience (aud)"},
		{"expired", rsaKey.sign(t, claims("u", map[string]any{"exp": testNow.Add(-2 * time.Minute).Unix()})), "expired"},
		{"not yet valid", rsaKey.sign(t, claims("u", map[string]any{"nbf": testNow.Add(hour).Unix()})), "not valid yet"},
		{"issued in the future", rsaKey.sign(t, claims("u", map[string]any{"iat": testNow.Add(hour).Unix(), "nbf": nil})), "issued in the future"},
		{"no exp", rsaKey.sign(t, claims("u", map[string]any{"exp": nil})), "no exp claim"},
		{"no sub", rsaKey.sign(t, claims("", nil)), "no sub claim"},
		{"unknown kid", unpublished.sign(t, claims("u", nil)), "not in the identity provider's JWKS"},
		{"alg none", unsignedToken(t, claims("root", nil)), `algorithm "none" is not accepted`},
		{"HS256 with only a JWKS", signWith(t, jwa.HS256(), []byte(testSecret), "", claims("u", nil)), "HS256 tokens are refused"},
		{"HS256 signed with a JWKS public key", hs256WithPublicKey(t, rsaKey), "HS256 tokens are refused"},
		{"not a JWT", "a.b.c", "neither a configured token nor a signed JWT"},
	}
	for _, tt := range tests {
		code, detail, user := call(t, a, tt.token)
		if code != http.StatusUnauthorized || !strings.Contains(detail, tt.want) || user != "" {
			t.Errorf("%s: %d %q (user %q); want 401 saying %q", tt.name, code, detail, user, tt.want)
		}
		if !strings.HasPrefix(detail, "The bearer token is not valid: ") {
			t.Errorf("%s: detail %q is not a sentence about the token", tt.name, detail)
		}
	}
	// Within the leeway, a just-expired token still passes.
	late := rsaKey.sign(t, claims("u", map[string]any{"exp": testNow.Add(-30 * time.Second).Unix()}))
	if code, detail, _ := call(t, a, late); code != http.StatusOK {
		t.Errorf("expired 30s ago with a 60s leeway: %d %q", code, detail)
	}
}

// hs256WithPublicKey is the key-confusion attack: an HS256 token whose
// secret is the JWKS's public RSA key.
func hs256WithPublicKey(t *testing.T, k signingKey) string {
	t.Helper()
	pub, err := k.jwk.PublicKey()
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(pub)
	if err != nil {
		t.Fatal(err)
	}
	return signWith(t, jwa.HS256(), b, k.kid, claims("mallory", nil))
}

func TestJWTKeyRotationRefreshesOncePerInterval(t *testing.T) {
	old := newSigningKey(t, "key-2026-05", jwa.ES256())
	rotated := newSigningKey(t, "key-2026-06", jwa.ES256())
	idp := newJWKSServer(t, old)
	clk := &clock{now: testNow}
	a := jwtAuthenticator(t, JWTConfig{JWKSURL: idp.url, AllowHosts: []string{idp.host}, RefreshInterval: time.Minute, Now: clk.Now})
	if code, detail, _ := call(t, a, old.sign(t, claims("u", nil))); code != http.StatusOK {
		t.Fatalf("old key: %d %q", code, detail)
	}
	// The provider rotates, but the JWKS was fetched just now: tokens of
	// the new key are refused without hammering the provider.
	idp.add(rotated)
	newToken := rotated.sign(t, claims("u", nil))
	for range 5 {
		if code, _, _ := call(t, a, newToken); code != http.StatusUnauthorized {
			t.Fatalf("new kid within the refresh interval: %d, want 401", code)
		}
	}
	if n := idp.fetches.Load(); n != 1 {
		t.Fatalf("%d fetches within one refresh interval, want 1", n)
	}
	// Past the interval, the unknown kid fetches the JWKS once more.
	clk.advance(61 * time.Second)
	if code, detail, user := call(t, a, newToken); code != http.StatusOK || user != "jwt:u" {
		t.Fatalf("rotated key after the interval: %d %q", code, detail)
	}
	if code, _, _ := call(t, a, old.sign(t, claims("u", nil))); code != http.StatusOK {
		t.Error("the old key, still published, is refused after the rotation")
	}
	if n := idp.fetches.Load(); n != 2 {
		t.Errorf("%d fetches, want 2", n)
	}
}

func TestJWTOwnerClaim(t *testing.T) {
	key := newSigningKey(t, "ed-1", jwa.EdDSA())
	idp := newJWKSServer(t, key)
	clk := &clock{now: testNow}
	a := jwtAuthenticator(t, JWTConfig{JWKSURL: idp.url, AllowHosts: []string{idp.host},
		OwnerClaim: "roles", OwnerValue: "harnest-owner", Now: clk.Now})
	if a.IsOwner("jwt:olga") {
		t.Fatal("an owner before any token")
	}
	owner := key.sign(t, claims("olga", map[string]any{"roles": []string{"staff", "harnest-owner"}}))
	if code, detail, _ := call(t, a, owner); code != http.StatusOK {
		t.Fatalf("owner token: %d %q", code, detail)
	}
	if !a.IsOwner("jwt:olga") || a.IsOwner("jwt:vic") {
		t.Fatal("the owner claim did not make olga, and only olga, an owner")
	}
	visitor := key.sign(t, claims("vic", map[string]any{"roles": "staff"}))
	if code, _, _ := call(t, a, visitor); code != http.StatusOK || a.IsOwner("jwt:vic") {
		t.Fatal("a token without the owner value made an owner")
	}
	// Olga's next token no longer carries the claim: she is no owner.
	if code, _, _ := call(t, a, key.sign(t, claims("olga", nil))); code != http.StatusOK || a.IsOwner("jwt:olga") {
		t.Fatal("the owner claim outlived a token without it")
	}
	// Ownership lasts as long as the token that proved it.
	call(t, a, owner)
	clk.advance(2 * time.Hour)
	if a.IsOwner("jwt:olga") {
		t.Error("an owner after the owner token expired")
	}
}

func TestOwnerValueMatches(t *testing.T) {
	tests := []struct {
		claim any
		want  string
		ok    bool
	}{
		{true, "", true}, {false, "", false}, {"true", "", false}, {true, "admin", false},
		{"admin", "admin", true}, {"Admin", "admin", false}, {[]any{"x", "admin"}, "admin", true},
		{[]any{"x", 1.0}, "admin", false}, {1.0, "admin", false}, {"", "", false},
	}
	for _, tt := range tests {
		if got := ownerValueMatches(tt.claim, tt.want); got != tt.ok {
			t.Errorf("ownerValueMatches(%#v, %q) = %v", tt.claim, tt.want, got)
		}
	}
}

func TestJWTSettingsRefused(t *testing.T) {
	for _, cfg := range []JWTConfig{
		{},
		{JWKSURL: "http://idp.example.com/jwks.json"},
		{JWKSURL: "https://127.0.0.1:9/jwks.json"},
		{JWKSURL: "https://169.254.169.254/jwks.json", AllowHosts: []string{"127.0.0.1"}},
	} {
		if _, err := NewJWT(cfg); err == nil {
			t.Errorf("NewJWT(%+v) accepted", cfg)
		}
	}
}

func TestJWKSUnreachableIsASentence(t *testing.T) {
	key := newSigningKey(t, "rsa-1", jwa.RS256())
	a := jwtAuthenticator(t, JWTConfig{JWKSURL: "http://127.0.0.1:1/jwks.json", AllowHosts: []string{"127.0.0.1:1"}})
	code, detail, _ := call(t, a, key.sign(t, claims("u", nil)))
	if code != http.StatusUnauthorized || !strings.Contains(detail, "JWKS could not be fetched") {
		t.Errorf("unreachable JWKS: %d %q", code, detail)
	}
}

// TestJWTSubjectIsNeverAStaticUser: a JWT whose sub is the user of a
// static token ("alice") is its own user ("jwt:alice"), and each source
// makes owners of its own users only.
func TestJWTSubjectIsNeverAStaticUser(t *testing.T) {
	key := newSigningKey(t, "ed-1", jwa.EdDSA())
	idp := newJWKSServer(t, key)
	a := jwtAuthenticator(t, JWTConfig{JWKSURL: idp.url, AllowHosts: []string{idp.host},
		OwnerClaim: "roles", OwnerValue: "harnest-owner"})
	if code, _, user := call(t, a, "tok-alice-0123456789"); code != http.StatusOK || user != "alice" {
		t.Fatalf("static alice: %d, user %q", code, user)
	}
	code, detail, user := call(t, a, key.sign(t, claims("alice", nil)))
	if code != http.StatusOK || user != "jwt:alice" {
		t.Fatalf("a JWT with sub alice: %d %q, user %q; want 200 as jwt:alice", code, detail, user)
	}
	if !IsJWTUser(user) || IsJWTUser("alice") {
		t.Error("IsJWTUser does not tell the two alices apart")
	}
	// A JWT alice with the owner claim owns as jwt:alice, never as alice.
	call(t, a, key.sign(t, claims("alice", map[string]any{"roles": "harnest-owner"})))
	if !a.IsOwner("jwt:alice") || a.IsOwner("alice") {
		t.Errorf("owner claim of a JWT with sub alice: jwt:alice %v, static alice %v; want true, false",
			a.IsOwner("jwt:alice"), a.IsOwner("alice"))
	}
}
