package a2a_test

import (
	"testing"
	"time"

	"github.com/harnest/harnest/a2a"
	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/outbox"
	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/server/servertest"
)

// pushServerSetup serves the echo card with the receiver's host allowed
// and a quick outbox.
func pushServerSetup(rc *testutil.Receiver) servertest.Setup {
	return servertest.Setup{
		Card: testCard("http://127.0.0.1:1907", true), PublicURL: true,
		Config: func(c *config.Config) {
			c.Server.Outbound.AllowHosts = []string{rc.Host()}
			c.Spec.Backend.Echo = &config.EchoBackend{}
		},
		Tune: func(o *runtime.Options) { o.FlushDelay = 5 * time.Millisecond },
		A2A:  func(o *a2a.Options) { o.Principal = testUser },
		Outbox: func(o *outbox.DispatcherOptions) {
			o.Poll, o.Lease, o.Timeout = 20*time.Millisecond, 5*time.Second, 5*time.Second
			o.Backoff = func(int) time.Duration { return 50 * time.Millisecond }
		},
	}
}

// checkSignature verifies a notification's JWT with the key set the
// server serves, and that it signs the body.
func checkSignature(t *testing.T, ts *servertest.Server, p testutil.Request) {
	t.Helper()
	keys := ts.Get("/.well-known/jwks.json")
	if keys.Status != 200 || keys.Header.Get("Content-Type") != "application/jwk-set+json" {
		t.Fatalf("GET /.well-known/jwks.json: %d %s", keys.Status, keys.Body)
	}
	testutil.VerifyPushJWT(t, keys.Body, p)
}

// untilCompleted is a Wait condition: a notification that says the task
// completed was delivered.
var untilCompleted = testutil.DeliveredWith("TASK_STATE_COMPLETED", "statusUpdate")
