package main

// Tests of "harnest connect --a2a" against other peers: the @a2a-js/sdk
// echo server, and small JSON-RPC agents that answer what harnest never
// does (a task still working after a blocking send, a 0.3 agent that does
// not know SendMessage, a redirect); and the address rule, checked before
// anything dials.

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/harnest/harnest/internal/testutil"
)

// rpcAgent is a JSON-RPC A2A agent whose answer to each call is given by
// answer (method → result or error object); it records what it was sent.
type rpcAgent struct {
	*httptest.Server
	mu      sync.Mutex
	methods []string
	auth    []string
}

func startRPCAgent(t *testing.T, answer func(method string) map[string]any) *rpcAgent {
	t.Helper()
	a := &rpcAgent{}
	a.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != "POST" {
			http.NotFound(w, r) // no agent card
			return
		}
		var req struct {
			ID     any    `json:"id"`
			Method string `json:"method"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		a.mu.Lock()
		a.methods = append(a.methods, req.Method)
		a.auth = append(a.auth, r.Header.Get("Authorization"))
		a.mu.Unlock()
		resp := answer(req.Method)
		resp["jsonrpc"], resp["id"] = "2.0", req.ID
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(resp)
	}))
	t.Cleanup(a.Close)
	return a
}

func (a *rpcAgent) calls() ([]string, []string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.methods...), append([]string(nil), a.auth...)
}

func TestA2ABridgeWorkingTaskIsNoAnswer(t *testing.T) {
	agent := startRPCAgent(t, func(string) map[string]any {
		return map[string]any{"result": map[string]any{"task": map[string]any{
			"id": "t1", "contextId": "c1", "status": map[string]any{"state": "TASK_STATE_WORKING"}}}}
	})
	rc, out, errs := selfTest(t, map[string]string{"A2A_TOKEN": "local-secret"}, "--a2a", agent.URL+"/")
	if rc != 1 || !strings.Contains(errs, "still working") || !strings.Contains(errs, "no answer") {
		t.Fatalf("a working task: %d %q %s", rc, out, errs)
	}
	methods, auth := agent.calls()
	if len(methods) != 1 || methods[0] != "SendMessage" || auth[0] != "Bearer local-secret" {
		t.Fatalf("the agent was sent %q with Authorization %q; want one SendMessage with the A2A_TOKEN", methods, auth)
	}
}

func TestA2ABridgeFallsBackToV03(t *testing.T) {
	agent := startRPCAgent(t, func(method string) map[string]any {
		if method != "message/send" {
			return map[string]any{"error": map[string]any{"code": -32601, "message": "Method not found"}}
		}
		return map[string]any{"result": map[string]any{"kind": "task", "id": "t1", "contextId": "c1",
			"status": map[string]any{"state": "completed",
				"message": map[string]any{"kind": "message", "role": "agent", "parts": []any{map[string]any{"kind": "text", "text": "status words"}}}},
			"artifacts": []any{map[string]any{"artifactId": "a1", "parts": []any{
				map[string]any{"kind": "text", "text": "first line"},
				map[string]any{"kind": "data", "data": map[string]any{"x": 1}},
				map[string]any{"kind": "text", "text": "second line"}}}}}}
	})
	b, err := newA2ABridge(agent.URL, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		answer, err := b.answer(context.Background(), job{text: "q"})
		if err != nil || answer != "first line\nsecond line" {
			t.Fatalf("answer %d: %q, %v", i, answer, err)
		}
	}
	// 1.0 once, then 0.3 for good.
	if methods, _ := agent.calls(); strings.Join(methods, ",") != "SendMessage,message/send,message/send" {
		t.Fatalf("methods sent: %q", methods)
	}
}

func TestA2ABridgeRefusesRedirects(t *testing.T) {
	var reached atomic.Int32
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { reached.Add(1) }))
	t.Cleanup(target.Close)
	agent := httptest.NewServer(http.RedirectHandler(target.URL+"/rpc", http.StatusTemporaryRedirect))
	t.Cleanup(agent.Close)
	rc, _, errs := selfTest(t, nil, "--a2a", agent.URL+"/rpc")
	if rc != 1 || !strings.Contains(errs, "redirected") || reached.Load() != 0 {
		t.Fatalf("redirect: %d %s (target reached %d times)", rc, errs, reached.Load())
	}
}

// recordingDialer dials like net.Dialer and records every address.
type recordingDialer struct {
	mu    sync.Mutex
	addrs []string
}

func (d *recordingDialer) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	d.mu.Lock()
	d.addrs = append(d.addrs, addr)
	d.mu.Unlock()
	return (&net.Dialer{}).DialContext(ctx, network, addr)
}

func (d *recordingDialer) count() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.addrs)
}

func TestA2ABridgeAddressRule(t *testing.T) {
	d := &recordingDialer{}
	for _, raw := range []string{
		"http://example.com/", "http://10.0.0.7:8001/", "http://192.168.1.2/rpc", "http://[fe80::1]/",
		"http://127.0.0.1.example.com/", "http://localhost.example.com/", "http://user:pw@127.0.0.1/",
		"ftp://127.0.0.1/", "127.0.0.1:8001", "",
	} {
		if _, err := newA2ABridge(raw, "", d.dial); err == nil {
			t.Errorf("%q accepted", raw)
		}
	}
	for _, raw := range []string{"https://agents.example.com/a2a", "http://localhost:8001/", "http://[::1]:8001/"} {
		if _, err := newA2ABridge(raw, "", d.dial); err != nil {
			t.Errorf("%q refused: %v", raw, err)
		}
	}
	if n := d.count(); n != 0 {
		t.Fatalf("%d dials before any question", n)
	}
	// The command line refuses it before pairing or dialling anything.
	rc, _, errs := selfTest(t, nil, "--a2a", "http://example.com:8001/")
	if rc != 2 || !strings.Contains(errs, "https") {
		t.Fatalf("plain http to a public host: %d %s", rc, errs)
	}
	// The injected dialer is the one the bridge dials with.
	agent := startRPCAgent(t, func(string) map[string]any {
		return map[string]any{"result": map[string]any{"message": map[string]any{
			"messageId": "m1", "role": "ROLE_AGENT", "parts": []any{map[string]any{"text": "hi"}}}}}
	})
	b, err := newA2ABridge(agent.URL, "", d.dial)
	if err != nil {
		t.Fatal(err)
	}
	if answer, err := b.answer(context.Background(), job{text: "q"}); err != nil || answer != "hi" {
		t.Fatalf("answer %q, %v", answer, err)
	}
	if d.count() == 0 {
		t.Fatal("the bridge did not dial through the injected dialer")
	}
}

func TestA2ABridgeJSEcho(t *testing.T) {
	url := startJSEcho(t)
	rc, out, errs := selfTest(t, nil, "--a2a", url)
	if rc != 0 || !strings.Contains(out, "Echo: "+connectSelfTestQ) {
		t.Fatalf("self-test against @a2a-js/sdk: %d %q %s", rc, out, errs)
	}
}

// startJSEcho runs conformance/a2a-js/echo-server.mjs (@a2a-js/sdk 1.3.0,
// JSON-RPC at /rpc) on a free loopback port and returns its URL. It skips
// without node or the packages, or fails under HARNEST_REQUIRE_NODE=1.
func startJSEcho(t *testing.T) string {
	t.Helper()
	dir := testutil.A2AJSDir()
	node := testutil.RequireNode(t, dir, "@a2a-js/sdk", "express")
	return "http://127.0.0.1:" + testutil.StartNodeServer(t, node, dir, nil, "echo-server.mjs", "0") + "/rpc"
}
