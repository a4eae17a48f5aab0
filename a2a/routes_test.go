package a2a_test

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/server/servertest"
)

func TestCardHandlerCaching(t *testing.T) {
	h := newHarness(t, setup{})
	r := h.do("GET", "/.well-known/agent-card.json", "")
	etag := r.Header.Get("ETag")
	if r.Status != 200 || etag == "" || !strings.Contains(r.Header.Get("Cache-Control"), "max-age") || str(r.JSON(t), "name") != "Echo" {
		t.Fatalf("card: %d %v %s", r.Status, r.Header, r.Body)
	}
	if r := h.do("GET", "/.well-known/agent-card.json", "", "If-None-Match", etag); r.Status != 304 || len(r.Body) != 0 {
		t.Fatalf("If-None-Match: %d %s", r.Status, r.Body)
	}
}

func TestVersionsAndExtensions(t *testing.T) {
	required := testCard("http://127.0.0.1:1907", true)
	required["supportedInterfaces"] = []any{dig(required, "supportedInterfaces", 0), dig(required, "supportedInterfaces", 1)} // 1.0 only
	required["capabilities"] = map[string]any{"streaming": true, "extensions": []any{
		map[string]any{"uri": "https://example.com/ext/must/v1", "required": true},
		map[string]any{"uri": "https://example.com/ext/may/v1"},
	}}
	h := newHarness(t, setup{card: required})
	send := map[string]any{"message": msg10("hi")}
	if r := h.rpc("1.0", "SendMessage", send).JSON(t); dig(r, "error", "code") != float64(-32008) {
		t.Fatalf("required extension missing: %v", r)
	}
	r := h.rpc("1.0", "SendMessage", send, "X-A2A-Extensions", "https://example.com/ext/must/v1, https://example.com/ext/may/v1, https://example.com/unknown")
	if str(r.JSON(t), "result", "message", "role") != roleAgent {
		t.Fatalf("with X-A2A-Extensions: %s", r.Body)
	}
	if got := r.Header.Get("A2A-Extensions"); got != "https://example.com/ext/must/v1, https://example.com/ext/may/v1" {
		t.Errorf("activated extensions echoed as %q", got)
	}
	ext := "A2A-Extensions"
	if r := h.rpc("", "message/send", map[string]any{}, ext, "https://example.com/ext/must/v1").JSON(t); dig(r, "error", "code") != float64(-32009) {
		t.Fatalf("0.3 on a 1.0-only interface: %v", r)
	}
	if r := h.rpc("2.0", "SendMessage", send, ext, "https://example.com/ext/must/v1").JSON(t); dig(r, "error", "code") != float64(-32009) {
		t.Fatalf("unknown version: %v", r)
	}
	if r := h.rpc("1.0.3", "message/send", send, ext, "https://example.com/ext/must/v1").JSON(t); dig(r, "error", "code") != float64(-32601) {
		t.Fatalf("0.3 method with A2A-Version 1.0: %v", r)
	}
	if r := h.do("GET", "/rest/v1/tasks/x", ""); r.Status != 404 || !strings.HasPrefix(string(r.Body), "404") {
		t.Fatalf("0.3 REST paths mounted on a 1.0-only interface: %d %s", r.Status, r.Body)
	}
	if r := h.do("GET", "/rest/tasks/x", "", "A2A-Version", "0.3", ext, "https://example.com/ext/must/v1"); r.Status != 400 || str(r.JSON(t), "error", "details", 0, "reason") != "VERSION_NOT_SUPPORTED" {
		t.Fatalf("REST with another version: %d %s", r.Status, r.Body)
	}
}

func TestJSONRPCEnvelopeErrors(t *testing.T) {
	h := newHarness(t, setup{})
	for _, c := range []struct {
		body string
		code float64
		id   any
	}{
		{`{"jsonrpc":"2.0","id":1,`, -32700, nil},
		{``, -32700, nil},
		{`[{"jsonrpc":"2.0","id":1,"method":"GetTask"}]`, -32600, nil},
		{`{"jsonrpc":"1.0","id":"x","method":"GetTask","params":{"id":"a"}}`, -32600, "x"},
		{`{"jsonrpc":"2.0","id":{},"method":"GetTask"}`, -32600, nil},
		{`{"jsonrpc":"2.0","id":2,"method":"NoSuchMethod","params":{}}`, -32601, float64(2)},
		{`{"jsonrpc":"2.0","id":3,"method":"GetTask","params":[1]}`, -32602, float64(3)},
		{`{"jsonrpc":"2.0","id":4,"method":"GetTask","params":{}}`, -32602, float64(4)},
		{`{"jsonrpc":"2.0","id":5,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"a","url":"b"}]}}}`, -32602, float64(5)},
		{`{"jsonrpc":"2.0","id":6,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"raw":"iVBORw0KGgoAAAAA","mediaType":"image/png"}]}}}`, -32005, float64(6)}, // a PNG that is not one
		{`{"jsonrpc":"2.0","id":7,"method":"CreateTaskPushNotificationConfig","params":{}}`, -32602, float64(7)},
		{`{"jsonrpc":"2.0","id":8,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_AGENT","parts":[{"text":"a"}]}}}`, -32602, float64(8)},
	} {
		r := h.do("POST", "/a2a/", c.body, "A2A-Version", "1.0")
		v := r.JSON(t)
		if r.Status != 200 || r.Header.Get("Content-Type") != "application/json" || dig(v, "error", "code") != c.code || v["id"] != c.id {
			t.Errorf("%s: %d %s", c.body, r.Status, r.Body)
		}
	}
	big := `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"` + strings.Repeat("a", 2<<20) + `"}]}}}`
	if r := h.do("POST", "/a2a", big, "A2A-Version", "1.0").JSON(t); dig(r, "error", "code") != float64(-32600) {
		t.Errorf("oversized body: %v", dig(r, "error"))
	}
}

// A task started on one replica is answered, read, listed and followed
// from another: the two share only the store (one in-process store, or one
// redis-server with a connection each).
func TestReplicas(t *testing.T) {
	s := setup{echo: config.EchoBackend{Approval: "act"}}
	servertest.EachStoreReplicas(t, 2, s.serverSetup(), func(t *testing.T, replicas []*servertest.Server) {
		replicaRoundTrip(t, harnessOf(replicas[0]), harnessOf(replicas[1]))
	})
}

func replicaRoundTrip(t *testing.T, a, b *harness) {
	r := a.rpc("1.0", "SendMessage", map[string]any{"message": msg10("go")}).JSON(t)
	id := str(r, "result", "task", "id")
	if str(b.rpc("1.0", "GetTask", map[string]any{"id": id}).JSON(t), "result", "status", "state") != stateInputRequired {
		t.Fatal("replica b does not see the waiting task")
	}
	sub := make(chan []map[string]any, 1)
	go func() {
		_, _, ev := a.sse("POST", "/a2a", `{"jsonrpc":"2.0","id":1,"method":"SubscribeToTask","params":{"id":"`+id+`"}}`, "A2A-Version", "1.0")
		sub <- ev
	}()
	time.Sleep(100 * time.Millisecond)
	done := b.rpc("1.0", "SendMessage", map[string]any{"message": msg10("approve", "taskId", id)}).JSON(t)
	if str(done, "result", "task", "status", "state") != stateCompleted || str(done, "result", "task", "artifacts", 0, "parts", 0, "text") != "Echo: go" {
		t.Fatalf("resumed through replica b: %v", done)
	}
	select {
	case ev := <-sub:
		if str(ev[len(ev)-1], "result", "statusUpdate", "status", "state") != stateCompleted {
			t.Fatalf("subscription on replica a: %v", ev)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("subscription on replica a did not end")
	}
	l := a.rpc("1.0", "ListTasks", map[string]any{"status": "TASK_STATE_COMPLETED"}).JSON(t)
	if str(l, "result", "tasks", 0, "id") != id {
		t.Fatalf("list on replica a: %v", l)
	}
}

// TestListTasksForeignPageToken drives both bindings: a page token of
// another user is refused exactly like a malformed one.
func TestListTasksForeignPageToken(t *testing.T) {
	eachStore(t, setup{}, func(t *testing.T, h *harness) {
		for i := 0; i < 3; i++ {
			for _, user := range []string{"alice", "bob"} {
				_, _, ev := h.sse("POST", "/a2a", `{"jsonrpc":"2.0","id":1,"method":"SendStreamingMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hi"}]}}}`,
					"A2A-Version", "1.0", "X-Test-User", user)
				if str(ev[len(ev)-1], "result", "statusUpdate", "status", "state") != stateCompleted {
					t.Fatalf("stream: %v", ev[len(ev)-1])
				}
			}
		}
		l := h.rpc("1.0", "ListTasks", map[string]any{"pageSize": 1}, "X-Test-User", "alice").JSON(t)
		tok := str(l, "result", "nextPageToken")
		if tok == "" || dig(l, "result", "totalSize") != float64(3) {
			t.Fatalf("alice's first page: %v", l)
		}
		if l := h.rpc("1.0", "ListTasks", map[string]any{"pageSize": 1, "pageToken": tok}, "X-Test-User", "alice").JSON(t); len(dig(l, "result", "tasks").([]any)) != 1 {
			t.Fatalf("alice's second page: %v", l)
		}

		rpcErr := func(user, token string) string {
			r := h.rpc("1.0", "ListTasks", map[string]any{"pageSize": 1, "pageToken": token}, "X-Test-User", user).JSON(t)
			b, err := json.Marshal(r["error"])
			if err != nil {
				t.Fatal(err)
			}
			return string(b)
		}
		malformed := rpcErr("alice", "garbage")
		if !strings.Contains(malformed, "-32602") || !strings.Contains(malformed, "pageToken is not a token this server issued") {
			t.Fatalf("malformed token: %s", malformed)
		}
		if got := rpcErr("bob", tok); got != malformed {
			t.Fatalf("JSON-RPC: alice's token for bob: %s, want %s", got, malformed)
		}

		restErr := func(user, token string) (int, string) {
			r := h.do("GET", "/rest/tasks?pageSize=1&pageToken="+url.QueryEscape(token), "", "X-Test-User", user)
			return r.Status, compactJSON(r.Body)
		}
		wantStatus, wantBody := restErr("alice", "garbage")
		if wantStatus != 400 {
			t.Fatalf("REST malformed token: %d %s", wantStatus, wantBody)
		}
		if status, body := restErr("bob", tok); status != wantStatus || body != wantBody {
			t.Fatalf("REST: alice's token for bob: %d %s, want %d %s", status, body, wantStatus, wantBody)
		}
	})
}
