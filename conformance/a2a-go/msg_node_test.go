package conformance

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestMsgJSSDK runs ../a2a-js/msg10.mjs (@a2a-js/sdk 1.3.0, A2A 1.0) and
// msg03.mjs (0.3.14, A2A 0.3) against harnest serving the test worker: a
// file and a data part echoed back as artifacts, a chunked artifact, and
// rejected and auth-required tasks, on JSON-RPC and HTTP+JSON.
func TestMsgJSSDK(t *testing.T) {
	dir, err := filepath.Abs("../a2a-js")
	if err != nil {
		t.Fatal(err)
	}
	skip := func(why string) {
		if os.Getenv(requireNodeEnv) == "1" {
			t.Fatalf("%s=1 but %s", requireNodeEnv, why)
		}
		t.Skip(why)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		skip("node is not installed")
	}
	for _, pkg := range []string{"@a2a-js/sdk", "a2a-js-sdk-03"} {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", pkg, "package.json")); err != nil {
			skip("run npm ci in conformance/a2a-js first (" + pkg + " is missing)")
		}
	}
	base := startMsgWorker(t)
	for _, script := range []string{"msg10.mjs", "msg03.mjs"} {
		t.Run(script, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, node, script, base)
			cmd.Dir = dir
			out, err := cmd.CombinedOutput()
			t.Logf("%s", out)
			if err != nil {
				t.Fatalf("%s failed: %v", script, err)
			}
		})
	}
}
