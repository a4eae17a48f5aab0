package auth

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jwk"
	"github.com/lestrrat-go/jwx/v3/jws"
	"github.com/lestrrat-go/jwx/v3/jwt"
)

// testNow is the fixed time the tests' tokens and verifiers agree on.
var testNow = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

// signingKey is a private key of the test identity provider.
type signingKey struct {
	kid string
	alg jwa.SignatureAlgorithm
	jwk jwk.Key // private, with kid
}

func newSigningKey(t *testing.T, kid string, alg jwa.SignatureAlgorithm) signingKey {
	t.Helper()
	var raw any
	var err error
	switch alg {
	case jwa.RS256():
		raw, err = rsa.GenerateKey(rand.Reader, 2048)
	case jwa.ES256():
		raw, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	case jwa.EdDSA():
		_, raw, err = ed25519.GenerateKey(rand.Reader)
	default:
		t.Fatalf("no test key for %s", alg)
	}
	if err != nil {
		t.Fatal(err)
	}
	k, err := jwk.Import(raw)
	if err != nil {
		t.Fatal(err)
	}
	if err := k.Set(jwk.KeyIDKey, kid); err != nil {
		t.Fatal(err)
	}
	if err := k.Set(jwk.AlgorithmKey, alg); err != nil {
		t.Fatal(err)
	}
	return signingKey{kid: kid, alg: alg, jwk: k}
}

// sign returns a compact JWT of claims signed with k, kid in the header.
func (k signingKey) sign(t *testing.T, claims map[string]any) string {
	t.Helper()
	return signWith(t, k.alg, k.jwk, k.kid, claims)
}

func signWith(t *testing.T, alg jwa.SignatureAlgorithm, key any, kid string, claims map[string]any) string {
	t.Helper()
	tok := jwt.New()
	for name, v := range claims {
		if err := tok.Set(name, v); err != nil {
			t.Fatal(err)
		}
	}
	hdr := jws.NewHeaders()
	if kid != "" {
		if err := hdr.Set(jws.KeyIDKey, kid); err != nil {
			t.Fatal(err)
		}
	}
	b, err := jwt.Sign(tok, jwt.WithKey(alg, key, jws.WithProtectedHeaders(hdr)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// unsignedToken is an "alg": "none" token, built by hand as an attacker
// would.
func unsignedToken(t *testing.T, claims map[string]any) string {
	t.Helper()
	payload, err := json.Marshal(claims)
	if err != nil {
		t.Fatal(err)
	}
	enc := base64.RawURLEncoding.EncodeToString
	return enc([]byte(`{"alg":"none","typ":"JWT"}`)) + "." + enc(payload) + "."
}

// jwksServer serves the public keys of the keys it holds on loopback and
// counts the fetches.
type jwksServer struct {
	url     string
	host    string
	fetches atomic.Int64
	mu      sync.Mutex
	keys    []signingKey
}

func newJWKSServer(t *testing.T, keys ...signingKey) *jwksServer {
	t.Helper()
	s := &jwksServer{keys: keys}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.fetches.Add(1)
		s.mu.Lock()
		set := jwk.NewSet()
		for _, k := range s.keys {
			pub, err := k.jwk.PublicKey()
			if err == nil {
				err = set.AddKey(pub)
			}
			if err != nil {
				s.mu.Unlock()
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
		}
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(set)
	}))
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	s.url, s.host = srv.URL+"/jwks.json", u.Host
	return s
}

// add publishes another key (rotation).
func (s *jwksServer) add(k signingKey) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keys = append(s.keys, k)
}

// claims are valid claims for user at testNow, with extra merged in.
func claims(user string, extra map[string]any) map[string]any {
	c := map[string]any{
		"iss": "https://idp.test", "aud": "harnest", "sub": user,
		"iat": testNow.Add(-time.Minute).Unix(), "nbf": testNow.Add(-time.Minute).Unix(), "exp": testNow.Add(time.Hour).Unix(),
	}
	for k, v := range extra {
		if v == nil {
			delete(c, k) // nil drops a claim
		} else {
			c[k] = v
		}
	}
	return c
}

// clock is a movable test clock.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}
