package conformance

import (
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/harnest/harnest/internal/testutil"
)

// TestJSSDK runs the Node scripts of ../a2a-js against three harnest
// servers (plain echo, echo with an approval, echo with a delay): the
// @a2a-js/sdk 1.3.0 client over A2A 1.0 and the 0.3.14 client over 0.3,
// each on JSON-RPC and HTTP+JSON.
func TestJSSDK(t *testing.T) {
	js := findNodeSDKs(t)
	plain := startHarnest(t, "{}")
	approval := startHarnest(t, "{approval: send_email}")
	slow := startHarnest(t, "{delayMs: 400}")
	for _, script := range []string{"sdk10.mjs", "sdk03.mjs"} {
		t.Run(script, func(t *testing.T) {
			js.run(t, script, plain.URL, approval.URL, slow.URL)
		})
	}
}

// nodeSDKs is node and ../a2a-js with both SDKs installed.
type nodeSDKs struct{ node, dir string }

// findNodeSDKs finds them, or skips the test (fails it when
// HARNEST_REQUIRE_NODE=1).
func findNodeSDKs(t *testing.T) nodeSDKs {
	t.Helper()
	dir := testutil.A2AJSDir()
	return nodeSDKs{node: testutil.RequireNode(t, dir, "@a2a-js/sdk", "a2a-js-sdk-03"), dir: dir}
}

// run runs one script of ../a2a-js with args (bounded: two minutes) and
// fails the test when it fails.
func (js nodeSDKs) run(t *testing.T, script string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, js.node, append([]string{script}, args...)...)
	cmd.Dir = js.dir
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("%s failed: %v", script, err)
	}
}
