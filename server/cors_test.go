package server_test

import (
	"net/http"
	"testing"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/server/servertest"
)

// A page of an allowed origin calls the API with a token: its preflight
// passes without one, and the answer is readable by it.
func TestCORSPreflightBeforeAuth(t *testing.T) {
	ts := servertest.Start(t, "", servertest.Setup{Config: func(c *config.Config) {
		c.Server.AllowedOrigins = []string{"https://app.example.com"}
		c.Auth.Tokens = []config.Token{{Token: "cors-token-0123456789", User: "alice"}}
	}})
	pre := ts.Do("OPTIONS", "/responses", "", nil, "Origin", "https://app.example.com", "Access-Control-Request-Method", "POST",
		"Access-Control-Request-Headers", "authorization, content-type")
	if pre.Status != http.StatusNoContent || pre.Header.Get("Access-Control-Allow-Origin") != "https://app.example.com" {
		t.Fatalf("preflight: %d %v %s", pre.Status, pre.Header, pre.Body)
	}
	r := ts.As("cors-token-0123456789").Do("POST", "/responses", "application/json", []byte(`{"input":"hi"}`), "Origin", "https://app.example.com")
	if r.Status != http.StatusOK || r.Header.Get("Access-Control-Allow-Origin") != "https://app.example.com" {
		t.Fatalf("request: %d %v %s", r.Status, r.Header, r.Body)
	}
	if r := ts.Do("POST", "/responses", "application/json", []byte(`{"input":"hi"}`), "Origin", "https://app.example.com"); r.Status != http.StatusUnauthorized {
		t.Fatalf("no token: %d, want 401", r.Status)
	}
}
