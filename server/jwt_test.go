package server_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jwk"
	"github.com/lestrrat-go/jwx/v3/jws"
	"github.com/lestrrat-go/jwx/v3/jwt"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/server/servertest"
)

// testIdP is an identity provider: one ES256 key, its JWKS on loopback.
type testIdP struct {
	key  jwk.Key
	url  string
	host string
}

func newTestIdP(t *testing.T) *testIdP {
	t.Helper()
	raw, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	key, err := jwk.Import(raw)
	if err != nil {
		t.Fatal(err)
	}
	_ = key.Set(jwk.KeyIDKey, "idp-1")
	pub, err := key.PublicKey()
	if err != nil {
		t.Fatal(err)
	}
	set := jwk.NewSet()
	_ = set.AddKey(pub)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(set)
	}))
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	return &testIdP{key: key, url: srv.URL + "/jwks.json", host: u.Host}
}

// token signs a JWT for user; roles are its roles claim.
func (p *testIdP) token(t *testing.T, user string, roles ...string) string {
	t.Helper()
	tok := jwt.New()
	for name, v := range map[string]any{"iss": "https://idp.test", "aud": "harnest", "sub": user,
		"iat": time.Now().Unix(), "exp": time.Now().Add(time.Hour).Unix(), "roles": roles} {
		_ = tok.Set(name, v)
	}
	hdr := jws.NewHeaders()
	_ = hdr.Set(jws.KeyIDKey, "idp-1")
	b, err := jwt.Sign(tok, jwt.WithKey(jwa.ES256(), p.key, jws.WithProtectedHeaders(hdr)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestJWTSignIn: JWTs of the identity provider beside a static token, the
// owner claim opening the owner routes, and /live with the JWT in the
// bearer subprotocol.
func TestJWTSignIn(t *testing.T) {
	idp := newTestIdP(t)
	ts := servertest.Start(t, "", servertest.Setup{Config: func(c *config.Config) {
		c.Server.Live = true
		c.Auth.Tokens = []config.Token{{Token: "static-token-0123456789", User: "sam"}}
		c.Auth.JWT = &config.JWTAuth{Issuer: "https://idp.test", Audience: "harnest", JWKSURL: idp.url,
			AllowHosts: []string{idp.host}, OwnerClaim: "roles", OwnerValue: "owner"}
	}})
	owner, visitor := idp.token(t, "olga", "owner"), idp.token(t, "vic", "staff")

	for _, tok := range []string{owner, visitor, "static-token-0123456789"} {
		servertest.MustStatus(t, ts.As(tok).Post("/responses", `{"input":"hi"}`), 200)
	}
	refused := ts.As(idp.token(t, "olga", "owner")+"x").Post("/responses", `{"input":"hi"}`)
	servertest.MustStatus(t, refused, 401)
	if !strings.Contains(string(refused.Body), "signature") {
		t.Errorf("a tampered JWT's 401 says %s", refused.Body)
	}

	const participants = "/owner/outside-agents/participants"
	servertest.MustStatus(t, ts.As(owner).Get(participants), 200)
	if r := ts.As(visitor).Get(participants); r.Status == 200 {
		t.Errorf("a JWT without the owner claim reads the owner routes: %d %s", r.Status, r.Body)
	}

	wsURL := "ws" + strings.TrimPrefix(ts.URL, "http") + "/live"
	liveConnect := func(token string) (map[string]any, error) {
		dialer := websocket.Dialer{Subprotocols: []string{"harnest.live", "bearer." + token}, HandshakeTimeout: 5 * time.Second}
		conn, _, err := dialer.Dial(wsURL, nil)
		if err != nil {
			return nil, err
		}
		defer conn.Close()
		_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		if err := conn.WriteMessage(websocket.TextMessage, []byte(`{"type":"connect"}`)); err != nil {
			return nil, err
		}
		var frame map[string]any
		err = conn.ReadJSON(&frame)
		return frame, err
	}
	frame, err := liveConnect(visitor)
	if err != nil || frame["sessionId"] == nil {
		t.Fatalf("/live with the JWT subprotocol: %v %v", frame, err)
	}
	sid, _ := frame["sessionId"].(string)
	servertest.MustStatus(t, ts.As(visitor).Get("/sessions/"+sid), 200)
	if r := ts.As(owner).Get("/sessions/" + sid); r.Status != 404 {
		t.Errorf("another JWT user reads the /live session: %d", r.Status)
	}
	_, err = liveConnect(visitor + "x")
	if ce, ok := err.(*websocket.CloseError); !ok || ce.Code != 4401 {
		t.Errorf("/live with a tampered JWT: %v, want close 4401", err)
	}
}

// TestJWTSubjectOfAStaticUser: beside static tokens, a JWT whose sub names
// a static token's user is a user of its own: it reads none of that
// user's sessions and responses (404) and does not inherit its owner:
// true (the owner routes answer 404); and a JWT's owner claim does not
// make the static user of the same name an owner.
func TestJWTSubjectOfAStaticUser(t *testing.T) {
	idp := newTestIdP(t)
	const aliceToken, bobToken = "static-alice-0123456789", "static-bob-0123456789"
	ts := servertest.Start(t, "", servertest.Setup{Config: func(c *config.Config) {
		c.Auth.Tokens = []config.Token{{Token: aliceToken, User: "alice", Owner: true}, {Token: bobToken, User: "bob"}}
		c.Auth.JWT = &config.JWTAuth{Issuer: "https://idp.test", Audience: "harnest", JWKSURL: idp.url,
			AllowHosts: []string{idp.host}, OwnerClaim: "roles", OwnerValue: "owner"}
	}})
	created := ts.As(aliceToken).Post("/responses", `{"input":"hi"}`)
	servertest.MustStatus(t, created, 200)
	body := created.JSON(t)
	sid, rid := body["sessionId"].(string), body["id"].(string)

	jwtAlice := idp.token(t, "alice")
	servertest.MustStatus(t, ts.As(jwtAlice).Get("/sessions/"+sid), 404)
	servertest.MustStatus(t, ts.As(jwtAlice).Get("/responses/"+rid+"?sessionId="+sid), 404)
	if r := ts.As(jwtAlice).Get("/sessions"); strings.Contains(string(r.Body), sid) {
		t.Errorf("a JWT with sub alice lists static alice's session: %s", r.Body)
	}
	const participants = "/owner/outside-agents/participants"
	servertest.MustStatus(t, ts.As(aliceToken).Get(participants), 200)
	servertest.MustStatus(t, ts.As(jwtAlice).Get(participants), 404)

	// A JWT bob with the owner claim owns as his JWT self; static bob,
	// whose token has no owner: true, stays no owner.
	servertest.MustStatus(t, ts.As(idp.token(t, "bob", "owner")).Get(participants), 200)
	servertest.MustStatus(t, ts.As(bobToken).Get(participants), 404)
}
