package conformance

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

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
	dir := t.TempDir()
	cfg := "apiVersion: harnest.dev/v1alpha1\nkind: Agent\nmetadata:\n  name: conformance\n" +
		"spec:\n  backend:\n    echo: " + echo + "\n  output:\n    thinking: true\n    toolActivity: false\n" +
		"server:\n  http:\n    maxConcurrentRequests: 64\n"
	for name, body := range map[string]string{"config.yaml": cfg, "agent-card.yaml": agentCard, "instructions.md": "Echo.\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ts := servertest.Start(t, "", servertest.Setup{Folder: dir, PublicURL: true})
	return &server{URL: ts.URL}
}

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}
