package server_test

import (
	"testing"
	"time"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/outbox"
	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/server/servertest"
)

// pushCard serves JSON-RPC at /a2a and HTTP+JSON at /rest, A2A 1.0 and 0.3.
func pushCard() map[string]any {
	iface := func(path, binding, version string) any {
		return map[string]any{"url": "http://127.0.0.1:1907" + path, "protocolBinding": binding, "protocolVersion": version}
	}
	return map[string]any{
		"name": "Push", "description": "Echoes, and pushes its updates.", "version": "1.0.0",
		"supportedInterfaces": []any{iface("/a2a", "JSONRPC", "1.0"), iface("/rest", "HTTP+JSON", "1.0"),
			iface("/a2a", "JSONRPC", "0.3"), iface("/rest", "HTTP+JSON", "0.3")},
		"capabilities":       map[string]any{"streaming": true},
		"defaultInputModes":  []any{"text/plain"},
		"defaultOutputModes": []any{"text/plain"},
		"skills":             []any{map[string]any{"id": "echo", "name": "Echo", "description": "Echo.", "tags": []any{"echo"}}},
	}
}

// pushSetup serves the push card with the receiver's host allowed and a
// quick outbox: short polls, leases and backoff.
func pushSetup(rc *testutil.Receiver, lease time.Duration) servertest.Setup {
	return servertest.Setup{
		Card: pushCard(), PublicURL: true,
		Config: func(c *config.Config) {
			c.Server.Outbound.AllowHosts = []string{rc.Host()}
			c.Spec.Backend.Echo = &config.EchoBackend{}
		},
		Tune: func(o *runtime.Options) { o.FlushDelay = 5 * time.Millisecond },
		Outbox: func(o *outbox.DispatcherOptions) {
			o.Poll, o.Lease, o.Timeout = 20*time.Millisecond, lease, 10*time.Second
			o.Backoff = func(int) time.Duration { return 50 * time.Millisecond }
		},
	}
}

// verifyPushJWT checks a notification's JWT with the key set the server
// serves: its signature, that it signs this body, and that Authorization
// carries it as a Bearer token.
func verifyPushJWT(t *testing.T, ts *servertest.Server, r testutil.Request) {
	t.Helper()
	keys := ts.Get("/.well-known/jwks.json")
	servertest.MustStatus(t, keys, 200)
	raw := r.Header.Get("A2A-Notification-Signature")
	if bearer := r.Header.Get("Authorization"); bearer != "Bearer "+raw {
		t.Errorf("Authorization %q, want the JWT as a Bearer token", bearer)
	}
	testutil.VerifyPushJWT(t, keys.Body, r)
}
