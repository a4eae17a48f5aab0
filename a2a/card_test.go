package a2a

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/testutil"
)

func TestMountErrorsNameTheInterface(t *testing.T) {
	for _, c := range []struct {
		iface map[string]any
		want  string
	}{
		{map[string]any{"url": "http://h/a", "protocolBinding": "GRPC", "protocolVersion": "1.0"}, `supportedInterfaces[1]: protocolBinding "GRPC"`},
		{map[string]any{"url": "http://h/a", "protocolBinding": "JSONRPC", "protocolVersion": "0.2"}, `supportedInterfaces[1]: protocolVersion "0.2"`},
		{map[string]any{"url": "http://h/a{x}", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}, `supportedInterfaces[1]: url`},
	} {
		card := testCard("http://h", true)
		card["supportedInterfaces"] = []any{dig(card, "supportedInterfaces", 0), c.iface}
		_, err := parseMounts(card)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want one naming %s", c.iface, err, c.want)
		}
	}
	mounts, err := parseMounts(testCard("http://h", true))
	if err != nil || len(mounts) != 2 || len(mounts[0].versions) != 2 || mounts[1].binding != bindingREST {
		t.Fatalf("mounts %+v %v", mounts, err)
	}
	for _, cap := range []string{"pushNotifications", "extendedAgentCard"} {
		card := testCard("http://h", true)
		card["capabilities"] = map[string]any{cap: true}
		if _, err := buildCard(context.Background(), Options{Card: card}); err == nil || !strings.Contains(err.Error(), cap) {
			t.Errorf("%s: %v", cap, err)
		}
	}
}

func TestServedCard(t *testing.T) {
	card := testCard("http://127.0.0.1:1907", true)
	info, err := buildCard(context.Background(), Options{Card: card, PublicBaseURL: "https://agents.example.com/team/"})
	if err != nil {
		t.Fatal(err)
	}
	c := info.card
	if got := str(c, "supportedInterfaces", 0, "url"); got != "https://agents.example.com/team/a2a" {
		t.Errorf("interface url %q", got)
	}
	if str(c, "protocolVersion") != "0.3.0" || str(c, "url") != "https://agents.example.com/team/a2a" || str(c, "preferredTransport") != "JSONRPC" {
		t.Errorf("0.3 fields %v %v %v", c["protocolVersion"], c["url"], c["preferredTransport"])
	}
	if str(c, "additionalInterfaces", 1, "transport") != "HTTP+JSON" || str(c, "additionalInterfaces", 1, "url") != "https://agents.example.com/team/rest" {
		t.Errorf("additionalInterfaces %v", c["additionalInterfaces"])
	}
	if str(card, "supportedInterfaces", 0, "url") != "http://127.0.0.1:1907/a2a" {
		t.Error("the configured card was modified")
	}
	// Without a 0.3 interface the card has no 0.3 fields.
	only10 := testCard("http://h", true)
	only10["supportedInterfaces"] = []any{dig(only10, "supportedInterfaces", 0)}
	info, _ = buildCard(context.Background(), Options{Card: only10})
	if info.card["url"] != nil || info.card["protocolVersion"] != nil {
		t.Errorf("0.3 fields on a 1.0-only card: %v", info.card)
	}
	if _, err := buildCard(context.Background(), Options{Card: card, PublicBaseURL: "ftp://x"}); err == nil {
		t.Error("a non-http public base URL is accepted")
	}
}

func TestCardHandlerCaching(t *testing.T) {
	h := newHarness(t, setup{})
	r := h.do("GET", "/.well-known/agent-card.json", "")
	etag := r.Header.Get("ETag")
	if r.Status != 200 || etag == "" || !strings.Contains(r.Header.Get("Cache-Control"), "max-age") || str(r.json(t), "name") != "Echo" {
		t.Fatalf("card: %d %v %s", r.Status, r.Header, r.Body)
	}
	if r := h.do("GET", "/.well-known/agent-card.json", "", "If-None-Match", etag); r.Status != 304 || len(r.Body) != 0 {
		t.Fatalf("If-None-Match: %d %s", r.Status, r.Body)
	}
}

func TestVersionsAndExtensions(t *testing.T) {
	required := func(base string) map[string]any {
		c := testCard(base, true)
		c["supportedInterfaces"] = []any{dig(c, "supportedInterfaces", 0), dig(c, "supportedInterfaces", 1)} // 1.0 only
		c["capabilities"] = map[string]any{"streaming": true, "extensions": []any{
			map[string]any{"uri": "https://example.com/ext/must/v1", "required": true},
			map[string]any{"uri": "https://example.com/ext/may/v1"},
		}}
		return c
	}
	h := newHarness(t, setup{card: required})
	send := map[string]any{"message": msg10("hi")}
	if r := h.rpc("1.0", "SendMessage", send).json(t); dig(r, "error", "code") != float64(-32008) {
		t.Fatalf("required extension missing: %v", r)
	}
	r := h.rpc("1.0", "SendMessage", send, "X-A2A-Extensions", "https://example.com/ext/must/v1, https://example.com/ext/may/v1, https://example.com/unknown")
	if str(r.json(t), "result", "message", "role") != roleAgent {
		t.Fatalf("with X-A2A-Extensions: %s", r.Body)
	}
	if got := r.Header.Get("A2A-Extensions"); got != "https://example.com/ext/must/v1, https://example.com/ext/may/v1" {
		t.Errorf("activated extensions echoed as %q", got)
	}
	ext := "A2A-Extensions"
	if r := h.rpc("", "message/send", map[string]any{}, ext, "https://example.com/ext/must/v1").json(t); dig(r, "error", "code") != float64(-32009) {
		t.Fatalf("0.3 on a 1.0-only interface: %v", r)
	}
	if r := h.rpc("2.0", "SendMessage", send, ext, "https://example.com/ext/must/v1").json(t); dig(r, "error", "code") != float64(-32009) {
		t.Fatalf("unknown version: %v", r)
	}
	if r := h.rpc("1.0.3", "message/send", send, ext, "https://example.com/ext/must/v1").json(t); dig(r, "error", "code") != float64(-32601) {
		t.Fatalf("0.3 method with A2A-Version 1.0: %v", r)
	}
	if r := h.do("GET", "/rest/v1/tasks/x", ""); r.Status != 404 || !strings.HasPrefix(string(r.Body), "404") {
		t.Fatalf("0.3 REST paths mounted on a 1.0-only interface: %d %s", r.Status, r.Body)
	}
	if r := h.do("GET", "/rest/tasks/x", "", "A2A-Version", "0.3", ext, "https://example.com/ext/must/v1"); r.Status != 400 || str(r.json(t), "error", "details", 0, "reason") != "VERSION_NOT_SUPPORTED" {
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
		{`{"jsonrpc":"2.0","id":6,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"url":"https://x/y.png"}]}}}`, -32005, float64(6)},
		{`{"jsonrpc":"2.0","id":7,"method":"CreateTaskPushNotificationConfig","params":{}}`, -32003, float64(7)},
		{`{"jsonrpc":"2.0","id":8,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_AGENT","parts":[{"text":"a"}]}}}`, -32602, float64(8)},
	} {
		r := h.do("POST", "/a2a/", c.body, "A2A-Version", "1.0")
		v := r.json(t)
		if r.Status != 200 || r.Header.Get("Content-Type") != "application/json" || dig(v, "error", "code") != c.code || v["id"] != c.id {
			t.Errorf("%s: %d %s", c.body, r.Status, r.Body)
		}
	}
	big := `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"` + strings.Repeat("a", 2<<20) + `"}]}}}`
	if r := h.do("POST", "/a2a", big, "A2A-Version", "1.0").json(t); dig(r, "error", "code") != float64(-32600) {
		t.Errorf("oversized body: %v", dig(r, "error"))
	}
}

// A task started on one replica is answered, read, listed and followed
// from another: the two share only Redis.
func TestReplicas(t *testing.T) {
	for _, c := range testutil.Stores(t) {
		t.Run(c.Name, func(t *testing.T) {
			a := newHarness(t, setup{echo: config.EchoBackend{Approval: "act"}, url: c.URL})
			second := setup{echo: config.EchoBackend{Approval: "act"}, url: c.URL, prefix: a.prefix}
			if c.URL == "" {
				second.st = a.st // the embedded store lives in this process
			}
			b := newHarness(t, second)
			replicaRoundTrip(t, a, b)
		})
	}
}

func replicaRoundTrip(t *testing.T, a, b *harness) {
	r := a.rpc("1.0", "SendMessage", map[string]any{"message": msg10("go")}).json(t)
	id := str(r, "result", "task", "id")
	if str(b.rpc("1.0", "GetTask", map[string]any{"id": id}).json(t), "result", "status", "state") != stateInputRequired {
		t.Fatal("replica b does not see the waiting task")
	}
	sub := make(chan []map[string]any, 1)
	go func() {
		_, _, ev := a.sse("POST", "/a2a", `{"jsonrpc":"2.0","id":1,"method":"SubscribeToTask","params":{"id":"`+id+`"}}`, "A2A-Version", "1.0")
		sub <- ev
	}()
	time.Sleep(100 * time.Millisecond)
	done := b.rpc("1.0", "SendMessage", map[string]any{"message": msg10("approve", "taskId", id)}).json(t)
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
	l := a.rpc("1.0", "ListTasks", map[string]any{"status": "TASK_STATE_COMPLETED"}).json(t)
	if str(l, "result", "tasks", 0, "id") != id {
		t.Fatalf("list on replica a: %v", l)
	}
}
