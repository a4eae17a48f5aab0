package metrics_test

import (
	"strconv"
	"testing"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/server/servertest"
)

const (
	ownerToken = "token-metrics-owner-0123456789"
	otherToken = "token-metrics-other-0123456789"
)

func itoa(n int) string { return strconv.Itoa(n) }

func withTokens(public bool) servertest.Setup {
	return servertest.Setup{Config: func(c *config.Config) {
		c.Auth.Tokens = []config.Token{
			{Token: ownerToken, User: "alice", Owner: true},
			{Token: otherToken, User: "bob"},
		}
		c.Server.MetricsPublic = public
	}}
}

// TestOwnerOnly: with tokens configured only the owner reads /metrics;
// another user gets 404 and a caller without a token 401.
func TestOwnerOnly(t *testing.T) {
	ts := servertest.Start(t, "", withTokens(false))
	scrape(t, ts.As(ownerToken))
	servertest.MustStatus(t, ts.As(otherToken).Get("/metrics"), 404)
	servertest.MustStatus(t, ts.Get("/metrics"), 401)
}

// TestPublic: server.metricsPublic lets anyone read /metrics, with or
// without a token.
func TestPublic(t *testing.T) {
	ts := servertest.Start(t, "", withTokens(true))
	scrape(t, ts)
	scrape(t, ts.As(otherToken))
	scrape(t, ts.As(ownerToken))
}

// TestWithoutAuth: with no tokens the local user is the owner.
func TestWithoutAuth(t *testing.T) {
	scrape(t, servertest.Start(t, "", servertest.Setup{}))
}

// TestDisabled: server.metrics false serves no /metrics.
func TestDisabled(t *testing.T) {
	off := false
	ts := servertest.Start(t, "", servertest.Setup{Config: func(c *config.Config) { c.Server.Metrics = &off }})
	if r := ts.Get("/metrics"); r.Status != 404 {
		t.Fatalf("GET /metrics with server.metrics false: status %d", r.Status)
	}
	servertest.MustStatus(t, ts.Post("/responses", `{"input":"hi"}`), 200)
}
