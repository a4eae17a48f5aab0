package mcpapi_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/server/servertest"
)

// mcpJSDir is conformance/mcp-js: the TypeScript MCP SDK client (npm ci
// there installs it).
func mcpJSDir() string {
	_, file, _, _ := goruntime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "conformance", "mcp-js")
}

// jsRun is what run.mjs reports.
type jsRun struct {
	Tools []string `json:"tools"`
	Calls []struct {
		Text, Progress string
	} `json:"calls"`
	Status string   `json:"status"`
	Text   string   `json:"text"`
	Asked  int      `json:"asked"`
	Meta   mcp.Meta `json:"meta"`
	Error  *string  `json:"error"`
}

// runJS runs one scenario of run.mjs against url.
func runJS(t *testing.T, node, scenario, url string) jsRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "run.mjs", scenario, url)
	cmd.Dir = mcpJSDir()
	var stderr testutil.SyncBuffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("node run.mjs %s: %v\n%s", scenario, err, stderr.String())
	}
	var r jsRun
	if err := json.Unmarshal(stdout, &r); err != nil {
		t.Fatalf("node run.mjs %s printed %q: %v\n%s", scenario, stdout, err, stderr.String())
	}
	return r
}

// TestTypeScriptClient: the official TypeScript SDK client, behind the
// round-robin balancer over two replicas, lists, calls with progress,
// answers an elicitation on the other replica and cancels there.
func TestTypeScriptClient(t *testing.T) {
	node := testutil.RequireNode(t, mcpJSDir(), "@modelcontextprotocol/sdk")
	t.Run("ListAndProgress", func(t *testing.T) {
		servertest.EachStoreReplicas(t, 2, setup{}.serverSetup(), func(t *testing.T, replicas []*servertest.Server) {
			rr := newRoundRobin(t, replicas)
			r := runJS(t, node, "list-progress", rr.URL+"/mcp")
			if len(r.Tools) != 1 || r.Tools[0] != "hello" || len(r.Calls) != 2 {
				t.Fatalf("run: %+v", r)
			}
			for _, c := range r.Calls {
				if c.Text == "" || c.Progress != c.Text {
					t.Errorf("call: answer %q, progress %q: want the answer as progress", c.Text, c.Progress)
				}
			}
			if rr.replicaOf(t, "tools/call", 0) == rr.replicaOf(t, "tools/call", 1) {
				t.Fatal("both calls went to one replica")
			}
		})
	})
	t.Run("ElicitationAnsweredElsewhere", func(t *testing.T) {
		servertest.EachStoreReplicas(t, 2, setup{echo: echoApproval}.serverSetup(), func(t *testing.T, replicas []*servertest.Server) {
			rr := newRoundRobin(t, replicas)
			r := runJS(t, node, "elicit", rr.URL+"/mcp")
			if r.Status != "completed" || r.Text != "Echo: send it" || r.Asked != 1 {
				t.Fatalf("approved by elicitation: %+v", r)
			}
			if rr.replicaOf(t, "tools/call", 0) == rr.replicaOf(t, "response", 0) {
				t.Fatal("the answer reached the replica that runs the call: the test shows nothing")
			}
		})
	})
	t.Run("CancelElsewhere", func(t *testing.T) {
		servertest.EachStoreReplicas(t, 2, setup{echo: echoSlow}.serverSetup(), func(t *testing.T, replicas []*servertest.Server) {
			rr := newRoundRobin(t, replicas)
			r := runJS(t, node, "cancel", rr.URL+"/mcp")
			if r.Error == nil || r.Meta == nil {
				t.Fatalf("cancelled call: %+v", r)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			waitStatus(ctx, t, replicas[1], r.Meta, "cancelled")
			if rr.replicaOf(t, "tools/call", 0) == rr.replicaOf(t, "notifications/cancelled", 0) {
				t.Fatal("the cancel reached the replica that runs the call: the test shows nothing")
			}
		})
	})
}
