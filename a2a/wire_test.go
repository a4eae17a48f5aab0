package a2a_test

import (
	"net/http"
	"testing"
	"time"
)

// The wire details of issue 15: proto field names, -32600 for a method
// that is not a string, stream errors as stream events, caching headers.

func TestProtoFieldNamesAccepted(t *testing.T) {
	h := newHarness(t, setup{})
	snake := `{"message":{"message_id":"snake-1","role":"ROLE_USER","context_id":"ctx-snake","parts":[{"text":"proto names"}]},` +
		`"configuration":{"history_length":1}}`
	r := h.do("POST", "/rest/message:send", snake).JSON(t)
	if str(r, "message", "parts", 0, "text") != "Echo: proto names" || str(r, "message", "contextId") != "ctx-snake" {
		t.Fatalf("1.0 REST with proto names: %v", r)
	}
	snake03 := `{"message":{"message_id":"snake-2","role":"ROLE_USER","context_id":"ctx-snake3","content":[{"text":"old names"}]}}`
	r = h.do("POST", "/rest/v1/message:send", snake03).JSON(t)
	if str(r, "message", "content", 0, "text") != "Echo: old names" || str(r, "message", "contextId") != "ctx-snake3" {
		t.Fatalf("0.3 REST with proto names: %v", r)
	}
	rpc := h.do("POST", "/a2a", `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":`+snake+`}`, "A2A-Version", "1.0").JSON(t)
	if str(rpc, "result", "message", "parts", 0, "text") != "Echo: proto names" {
		t.Fatalf("1.0 JSON-RPC with proto names: %v", rpc)
	}
	rpc = h.do("POST", "/a2a", `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"message_id":"s3","kind":"message","role":"user","parts":[{"kind":"text","text":"slash"}]}}}`).JSON(t)
	if str(rpc, "result", "parts", 0, "text") != "Echo: slash" {
		t.Fatalf("0.3 JSON-RPC with proto names: %v", rpc)
	}
	// Query parameters too.
	_, _, ev := h.sse("POST", "/rest/message:stream", `{"message":{"messageId":"q","role":"ROLE_USER","parts":[{"text":"q"}]}}`)
	id := str(ev[0], "task", "id")
	g := h.do("GET", "/rest/tasks/"+id+"?history_length=0", "").JSON(t)
	if g["history"] != nil || str(g, "id") != id {
		t.Fatalf("history_length=0: %v", g)
	}
}

func TestMethodNotAStringIsInvalidRequest(t *testing.T) {
	h := newHarness(t, setup{})
	for _, body := range []string{`{"jsonrpc":"2.0","id":1,"method":7}`, `{"jsonrpc":"2.0","id":1,"method":{"x":1}}`,
		`{"jsonrpc":2,"id":1,"method":"GetTask"}`} {
		if e := h.do("POST", "/a2a", body).JSON(t); dig(e, "error", "code") != float64(-32600) || dig(e, "id") != float64(1) {
			t.Errorf("%s: %v", body, e)
		}
	}
	if e := h.do("POST", "/a2a", `{"jsonrpc":"2.0","id":1,"method":`).JSON(t); dig(e, "error", "code") != float64(-32700) {
		t.Errorf("broken JSON: %v", e)
	}
}

func TestStreamErrorsBeforeTheFirstEventAreEvents(t *testing.T) {
	h := newHarness(t, setup{})
	for _, c := range []struct{ version, body string }{
		{"1.0", `{"jsonrpc":"2.0","id":"x","method":"SendStreamingMessage","params":{"message":{"role":"ROLE_USER","parts":[]}}}`},
		{"1.0", `{"jsonrpc":"2.0","id":"x","method":"SendStreamingMessage","params":{"message":{"messageId":"a","role":"ROLE_USER","taskId":"nope","parts":[{"text":"a"}]}}}`},
		{"0.9", `{"jsonrpc":"2.0","id":"x","method":"SendStreamingMessage","params":{}}`},
		{"", `{"jsonrpc":"2.0","id":"x","method":"message/stream","params":{"message":{}}}`},
	} {
		code, ct, ev := h.sse("POST", "/a2a", c.body, "A2A-Version", c.version)
		if code != 200 || ct != "text/event-stream" || len(ev) != 1 || dig(ev[0], "error", "code") == nil || str(ev[0], "id") != "x" {
			t.Errorf("%s %s: %d %s %v", c.version, c.body, code, ct, ev)
		}
	}
}

func TestCardValidators(t *testing.T) {
	h := newHarness(t, setup{})
	r := h.do("GET", "/.well-known/agent-card.json", "")
	etag, modified := r.Header.Get("ETag"), r.Header.Get("Last-Modified")
	if r.Status != 200 || etag == "" || modified == "" || r.Header.Get("Cache-Control") == "" {
		t.Fatalf("card headers %v", r.Header)
	}
	if c := h.do("GET", "/.well-known/agent-card.json", "", "If-None-Match", etag); c.Status != http.StatusNotModified || len(c.Body) != 0 {
		t.Errorf("If-None-Match: %d", c.Status)
	}
	if c := h.do("GET", "/.well-known/agent-card.json", "", "If-Modified-Since", modified); c.Status != http.StatusNotModified {
		t.Errorf("If-Modified-Since: %d", c.Status)
	}
	old := time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat)
	if c := h.do("GET", "/.well-known/agent-card.json", "", "If-Modified-Since", old); c.Status != 200 {
		t.Errorf("If-Modified-Since an hour ago: %d", c.Status)
	}
	if c := h.do("GET", "/.well-known/agent-card.json", "", "If-None-Match", `"other"`); c.Status != 200 {
		t.Errorf("another ETag: %d", c.Status)
	}
}

func TestTaskReadValidators(t *testing.T) {
	h := newHarness(t, setup{})
	_, _, ev := h.sse("POST", "/rest/message:stream", `{"message":{"messageId":"v","role":"ROLE_USER","parts":[{"text":"v"}]}}`)
	id := str(ev[0], "task", "id")
	for _, path := range []string{"/rest/tasks/" + id, "/rest/v1/tasks/" + id} {
		r := h.do("GET", path, "")
		etag := r.Header.Get("ETag")
		if r.Status != 200 || etag == "" || r.Header.Get("Last-Modified") == "" || r.Header.Get("Cache-Control") != "private, no-cache" {
			t.Fatalf("%s: %d %v", path, r.Status, r.Header)
		}
		if c := h.do("GET", path, "", "If-None-Match", etag); c.Status != http.StatusNotModified {
			t.Errorf("%s If-None-Match: %d", path, c.Status)
		}
		if c := h.do("GET", path+"?historyLength=0", "", "If-None-Match", etag); c.Status != 200 {
			t.Errorf("%s another representation: %d", path, c.Status)
		}
		if c := h.do("GET", path, "", "If-None-Match", etag, "X-Test-User", "bob"); c.Status != 404 {
			t.Errorf("%s another user's task: %d", path, c.Status)
		}
	}
}
