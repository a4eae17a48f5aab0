package relay_test

import (
	"strings"
	"testing"
	"time"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/testutil/fakemcp"
	"github.com/harnest/harnest/server/servertest"
)

// With tools at home on, /readyz also says whether the tools can serve: an
// MCP server that stops answering makes the replica not ready until it is
// back.
func TestToolsAtHomeReadiness(t *testing.T) {
	fake := fakemcp.StartHTTP(t)
	s := envSetup{}
	setup := s.serverSetup(&clock{})
	base := setup.Config
	setup.Config = func(c *config.Config) {
		base(c)
		c.Spec.Relay.ToolsAtHome = true
		c.Spec.MCPServers = []config.MCPServer{{Name: "web", URL: fake.URL}}
	}
	ts := servertest.Start(t, "", setup)
	ready := func() (int, string) {
		r := ts.Get("/readyz")
		return r.Status, string(r.Body)
	}
	if code, body := ready(); code != 200 {
		t.Fatalf("/readyz with the MCP server up: %d %s", code, body)
	}
	fake.Stop()
	waitReady(t, ready, 503, "agent_unavailable")
	fake.Restart()
	waitReady(t, ready, 200, "")
}

// waitReady polls /readyz (bounded) until it answers status with text in
// its body.
func waitReady(t *testing.T, ready func() (int, string), status int, text string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	code, body := ready()
	for (code != status || !strings.Contains(body, text)) && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
		code, body = ready()
	}
	if code != status || !strings.Contains(body, text) {
		t.Fatalf("/readyz = %d %s; want %d with %q", code, body, status, text)
	}
}
