package conformance

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestJSSDKWire runs ../a2a-js/wire10.mjs: the extended card with and
// without the token, and streaming calls that fail before their first
// event, with the @a2a-js/sdk 1.3.0 client on both bindings.
func TestJSSDKWire(t *testing.T) {
	dir, err := filepath.Abs("../a2a-js")
	if err != nil {
		t.Fatal(err)
	}
	node, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join(dir, "node_modules", "@a2a-js/sdk", "package.json"))
	}
	if err != nil {
		if os.Getenv(requireNodeEnv) == "1" {
			t.Fatalf("%s=1 but node or conformance/a2a-js/node_modules is missing: %v", requireNodeEnv, err)
		}
		t.Skip("node or conformance/a2a-js/node_modules is missing (npm ci there)")
	}
	secured, plain := startSecured(t), startHarnest(t, "{}")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "wire10.mjs", secured.URL, securedToken, plain.URL)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("wire10.mjs failed: %v", err)
	}
}
