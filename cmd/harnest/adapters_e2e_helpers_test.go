package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// What the framework adapters' end-to-end tests share (langgraph_e2e_test.go,
// adk_e2e_test.go): their npm packages, and an example folder adapted to
// run where it is.

// needAdapterPackage skips the test when node or the adapters' npm package
// pkg (as "@google/adk") is missing, or fails it under HARNEST_REQUIRE_NODE=1.
func needAdapterPackage(t *testing.T, pkg string) {
	t.Helper()
	missing := ""
	if _, err := exec.LookPath("node"); err != nil {
		missing = "node is not on PATH"
	} else if _, err := os.Stat(filepath.Join("../../adapters/node/node_modules", pkg, "package.json")); err != nil {
		missing = pkg + " is not installed (run npm ci in adapters/node)"
	}
	if missing == "" {
		return
	}
	if os.Getenv("HARNEST_REQUIRE_NODE") == "1" {
		t.Fatalf("HARNEST_REQUIRE_NODE=1 but %s", missing)
	}
	t.Skip(missing)
}

// adapterFolder copies an example's files into a temp folder whose config
// runs the example's agent.js where it is (its imports are relative), with
// spec lines added (such as the output policy) and the test's own store
// prefix; /live is on.
func adapterFolder(t *testing.T, example, specLines string) string {
	t.Helper()
	dir := copyFolder(t, example)
	agentJS, err := filepath.Abs(filepath.Join(example, "agent.js"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "config.yaml")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cfg := string(b)
	for _, want := range []string{`["node", "agent.js"]`, "\nspec:\n"} {
		if !strings.Contains(cfg, want) {
			t.Fatalf("%s/config.yaml has no %q to adapt:\n%s", example, want, cfg)
		}
	}
	cfg = strings.Replace(cfg, `["node", "agent.js"]`, `["node", "`+agentJS+`"]`, 1)
	cfg = strings.Replace(cfg, "\nspec:\n", "\nspec:\n"+specLines, 1)
	if err := os.WriteFile(path, []byte(cfg+"server:\n  live: true\n"+prefixed(t)), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// adapterReplicas are the two replicas of one real Redis that an adapter's
// conversations run on, with the example's fake model.
type adapterReplicas struct{ a, b *harnest }

func startAdapterReplicas(t *testing.T, dir string) adapterReplicas {
	t.Helper()
	redisURL := realRedis(t)
	env := []string{"HARNEST_FAKE_MODEL=1"}
	return adapterReplicas{
		a: startHarnest(t, dir, env, "--redis-url", redisURL),
		b: startHarnest(t, dir, env, "--redis-url", redisURL),
	}
}

// streamTurn streams input on h (in session sid, if any) and returns the
// frames, which must end with response.completed of the given status.
func streamTurn(t *testing.T, h *harnest, input, sid, status string) []sseFrame {
	t.Helper()
	body := map[string]any{"input": input, "stream": true}
	if sid != "" {
		body["sessionId"] = sid
	}
	frames := h.openStream(t, js(body)).rest(t, 20*time.Second)
	mustEndCompleted(t, frames, status)
	return frames
}

// liveConversation holds two turns on a /live socket to A: a streamed
// answer to hello, then send, whose approval is answered over HTTP on B;
// the socket sees the approval resolved and the resumed answer.
func (r adapterReplicas) liveConversation(t *testing.T, hello, send string) {
	onA, _ := dialLive(t, r.a, "")
	onA.send(map[string]any{"type": "response.create", "input": hello, "requestId": "live-1"})
	frames := onA.until("response.completed")
	deltas := 0
	for _, f := range frames {
		if f["type"] == "response.text.delta" {
			deltas++
		}
	}
	if end := frames[len(frames)-1]; end["status"] != "completed" || deltas == 0 || end["outputText"] == "" {
		t.Fatalf("turn 1 on the socket: %s", js(frames))
	}
	onA.send(map[string]any{"type": "response.create", "input": send, "requestId": "live-2"})
	frames = onA.until("response.completed")
	approval, _ := liveFrame(t, frames, "approval.requested")["approval"].(map[string]any)
	if frames[len(frames)-1]["status"] != "requires_action" || approval["id"] == nil {
		t.Fatalf("turn 2 on the socket: %s", js(frames))
	}
	completed(t, r.b.post(t, "/approvals/"+approval["id"].(string), `{"decision":"approve"}`))
	frames = onA.until("response.completed")
	if frames[0]["type"] != "approval.resolved" || frames[len(frames)-1]["status"] != "completed" || frames[len(frames)-1]["requestId"] != "live-2" {
		t.Fatalf("after the approval on B the socket got %s", js(frames))
	}
}
