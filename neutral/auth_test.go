package neutral_test

import (
	"strings"
	"testing"

	"github.com/harnest/harnest/config"
)

func withTokens(c *configT) {
	c.Auth.Tokens = []config.Token{{Token: "token-alice-0123456789", User: "alice"}, {Token: "token-bob-0123456789", User: "bob"}}
}

func TestAuthRequired(t *testing.T) {
	eachStore(t, setup{Config: withTokens}, func(t *testing.T, ts *testServer) {
		for _, p := range []string{"/healthz", "/.well-known/agent-card.json", "/agent"} {
			mustStatus(t, ts.Get(p), 200)
		}
		for _, p := range []string{"/sessions", "/sessions/x", "/sessions/x/messages", "/responses/resp_x?sessionId=x", "/openapi.json", "/openapi.yaml", "/docs"} {
			r := ts.Get(p)
			mustStatus(t, r, 401)
			if !strings.HasPrefix(r.Header.Get("WWW-Authenticate"), "Bearer") {
				t.Fatalf("%s: no WWW-Authenticate", p)
			}
		}
		mustStatus(t, ts.Post("/responses", `{"input":"hi"}`), 401)
		mustStatus(t, ts.as("wrong-token").Get("/sessions"), 401)
		mustStatus(t, ts.as("token-alice-0123456789").Get("/sessions"), 200)
		mustStatus(t, ts.as("token-alice-0123456789").Get("/openapi.json"), 200)
	})
}

func TestUsersAreIsolated(t *testing.T) {
	eachStore(t, setup{Config: withTokens}, func(t *testing.T, ts *testServer) {
		alice, bob := ts.as("token-alice-0123456789"), ts.as("token-bob-0123456789")
		mustStatus(t, alice.Post("/sessions", `{"id":"shared-name","state":{"owner":"alice"}}`), 201)
		// Bob can own a session with the same ID without seeing Alice's.
		mustStatus(t, bob.Get("/sessions/shared-name"), 404)
		mustStatus(t, bob.Post("/sessions", `{"id":"shared-name"}`), 201)
		if s := bob.Get("/sessions/shared-name").JSON(t); s["userId"] != "bob" || len(s["state"].(map[string]any)) != 0 {
			t.Fatalf("bob sees %v", s)
		}
		r := alice.Post("/responses", `{"input":"secret plans","sessionId":"shared-name"}`)
		mustStatus(t, r, 200)
		rid := r.JSON(t)["id"].(string)
		mustStatus(t, bob.Get("/responses/"+rid+"?sessionId=shared-name"), 404)
		if msgs := bob.Get("/sessions/shared-name/messages").JSON(t)["messages"].([]any); len(msgs) != 0 {
			t.Fatalf("bob reads alice's transcript: %v", msgs)
		}
		mustStatus(t, bob.Do("PATCH", "/sessions/x", "application/json", []byte(`{"stateDelta":{}}`)), 404)
		mustStatus(t, bob.Post("/responses", `{"input":"hi","sessionId":"not-bobs"}`), 404)
		// Cursors are bound to their user.
		for i := 0; i < 3; i++ {
			mustStatus(t, alice.Post("/sessions", `{}`), 201)
		}
		next, _ := alice.Get("/sessions?limit=1").JSON(t)["nextCursor"].(string)
		if next == "" {
			t.Fatal("no cursor")
		}
		mustStatus(t, bob.Get("/sessions?cursor="+next), 400)
		mustStatus(t, alice.Get("/sessions?cursor="+next), 200)
		if n := len(bob.Get("/sessions").JSON(t)["sessions"].([]any)); n != 1 {
			t.Fatalf("bob lists %d sessions", n)
		}
		mustStatus(t, bob.Do("DELETE", "/sessions/shared-name", "", nil), 204)
		mustStatus(t, alice.Get("/sessions/shared-name"), 200)
	})
}
