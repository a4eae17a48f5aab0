package conformance

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/harnest/harnest/runtime/store/stores"

	"github.com/harnest/harnest/a2a"
	"github.com/harnest/harnest/backend"
	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/runtime"
)

// agentCard declares every binding and version harnest serves: JSON-RPC at
// /a2a and HTTP+JSON at /rest, each for A2A 1.0 and 0.3. The URLs are
// placeholders; the public base URL puts the test server's address in the
// served card.
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

// server is harnest serving an agent folder over loopback, built from the
// same packages cmd/harnest assembles.
type server struct {
	URL string
}

// startHarnest serves an echo agent with the given echo options (YAML
// flow mapping, such as "{approval: send_email}").
func startHarnest(t testing.TB, echo string) *server {
	t.Helper()
	dir := t.TempDir()
	cfg := "apiVersion: harnest.dev/v1alpha1\nkind: Agent\nmetadata:\n  name: conformance\nspec:\n  backend:\n    echo: " + echo + "\n"
	for name, body := range map[string]string{"config.yaml": cfg, "agent-card.yaml": agentCard, "instructions.md": "Echo.\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	f, err := config.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, err := stores.Open(ctx, stores.Options{KeyPrefix: f.Config.Store.KeyPrefix})
	if err != nil {
		t.Fatal(err)
	}
	agent, err := backend.New(f.Config.Spec.Backend, f.Dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	svc := runtime.New(runtime.Options{Store: st, Agent: agent, MaxConcurrent: 64,
		Policy: runtime.OutputPolicy{ShowThinking: true, HideToolActivity: true}})
	if err := svc.Start(ctx); err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	hs := httptest.NewUnstartedServer(mux)
	base := "http://" + hs.Listener.Addr().String()
	srv, err := a2a.New(a2a.Options{Service: svc, Store: st, Card: f.Card, PublicBaseURL: base,
		Principal: func(*http.Request) runtime.Principal { return runtime.Anonymous }})
	if err != nil {
		t.Fatal(err)
	}
	srv.Register(mux)
	mux.Handle("GET /.well-known/agent-card.json", srv.CardHandler())
	hs.Start()
	t.Cleanup(func() {
		hs.Close()
		c, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
		defer cancel()
		_ = svc.Shutdown(c)
		st.Close()
	})
	return &server{URL: base}
}

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}
