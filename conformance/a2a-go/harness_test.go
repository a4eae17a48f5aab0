package conformance

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	harnestserver "github.com/harnest/harnest/server"
	"github.com/harnest/harnest/server/servertest"
)

// agentCard declares every binding and version harnest serves: JSON-RPC at
// /a2a and HTTP+JSON at /rest, each for A2A 1.0 and 0.3. The URLs are
// placeholders; the public base URL (servertest's PublicURL) puts the test
// server's address in the served card.
const agentCard = `name: Conformance Echo
description: Echoes what you say; a test double for A2A clients.
version: 1.0.0
supportedInterfaces:
  - {url: "http://127.0.0.1:1907/a2a", protocolBinding: JSONRPC, protocolVersion: "1.0"}
  - {url: "http://127.0.0.1:1907/rest", protocolBinding: HTTP+JSON, protocolVersion: "1.0"}
  - {url: "http://127.0.0.1:1907/a2a", protocolBinding: JSONRPC, protocolVersion: "0.3"}
  - {url: "http://127.0.0.1:1907/rest", protocolBinding: HTTP+JSON, protocolVersion: "0.3"}
capabilities:
  streaming: true
defaultInputModes: [text/plain]
defaultOutputModes: [text/plain]
skills:
  - {id: echo, name: Echo, description: Repeats the message back., tags: [echo]}
`

// server is a whole harnest server serving an agent folder over loopback
// (servertest: server.New, as cmd/harnest builds it).
type server struct {
	URL string
}

// startHarnest serves an echo agent with the given echo options (YAML
// flow mapping, such as "{approval: send_email}"), with thinking shown,
// tool activity hidden and room for 64 turns at once.
func startHarnest(t testing.TB, echo string) *server {
	t.Helper()
	cfg := configHead + "spec:\n  backend:\n    echo: " + echo + "\n  output:\n    thinking: true\n    toolActivity: false\n" +
		"server:\n  http:\n    maxConcurrentRequests: 64\n"
	dir := writeFolder(t, map[string]string{"config.yaml": cfg, "agent-card.yaml": agentCard})
	ts := servertest.Start(t, "", servertest.Setup{Folder: dir, PublicURL: true})
	return &server{URL: ts.URL}
}

// configHead starts every config.yaml of these tests.
const configHead = "apiVersion: harnest.dev/v1alpha1\nkind: Agent\nmetadata:\n  name: conformance\n"

// writeFolder writes an agent folder of these files (with an
// instructions.md unless given) into a temp dir and returns it.
func writeFolder(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	if _, ok := files["instructions.md"]; !ok {
		files["instructions.md"] = "Echo.\n"
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// serveOn serves the agent folder on l (made before the server, so that
// its card can name the address: gRPC and HTTP on one port) until the test
// ends, and returns its base URL.
func serveOn(t *testing.T, l net.Listener, dir string) string {
	t.Helper()
	ts := servertest.Start(t, "", servertest.Setup{Folder: dir})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ts.Srv.ServeWith(ctx, l, harnestserver.ServeOptions{Grace: time.Second}) }()
	t.Cleanup(func() { cancel(); <-done })
	return "http://" + l.Addr().String()
}

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}
