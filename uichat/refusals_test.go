package uichat_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/server/servertest"
)

// Bad requests get a clear {detail, code} and change nothing; the door
// asks for the server's tokens; it is off unless server.useChat is on.
func TestRefusals(t *testing.T) {
	ts := servertest.Start(t, "", setup(func(c *config.Config) { c.Server.Limits.MaxRequestBytes = 4096 }))
	cases := []struct {
		name, token, method, path, body string
		status                          int
		code                            string
	}{
		{"no token", "", "POST", "/api/chat", userMessage("c", "hi"), 401, ""},
		{"bad token", "nope", "POST", "/api/chat", userMessage("c", "hi"), 401, ""},
		{"not JSON", "alice-token", "POST", "/api/chat", "{", 400, "invalid_request"},
		{"no id", "alice-token", "POST", "/api/chat", `{"messages":[{"role":"user","parts":[{"type":"text","text":"hi"}]}]}`, 400, "invalid_request"},
		{"an ID no session can have", "alice-token", "POST", "/api/chat", userMessage("a b", "hi"), 400, "invalid_session"},
		{"no messages", "alice-token", "POST", "/api/chat", `{"id":"c","messages":[]}`, 400, "invalid_request"},
		{"bad trigger", "alice-token", "POST", "/api/chat", `{"id":"c","trigger":"x","messages":[{"role":"user","parts":[{"type":"text","text":"hi"}]}]}`, 400, "invalid_request"},
		{"system last", "alice-token", "POST", "/api/chat", `{"id":"c","messages":[{"role":"system","parts":[{"type":"text","text":"hi"}]}]}`, 400, "invalid_request"},
		{"blank text", "alice-token", "POST", "/api/chat", `{"id":"c","messages":[{"role":"user","parts":[{"type":"text","text":"  "}]}]}`, 400, "invalid_request"},
		{"metadata not an object", "alice-token", "POST", "/api/chat", `{"id":"c","metadata":3,"messages":[{"role":"user","parts":[{"type":"text","text":"hi"}]}]}`, 400, "invalid_request"},
		{"too large", "alice-token", "POST", "/api/chat", userMessage("c", strings.Repeat("x", 5000)), 413, "request_too_large"},
		{"answer to nothing", "alice-token", "POST", "/api/chat", approvalBody("nochat", "m", "call", "approval_x", true), 404, "session_not_found"},
		{"GET the chat API", "alice-token", "GET", "/api/chat", "", 405, "method_not_allowed"},
		{"GET stop", "alice-token", "GET", "/api/chat/c/stop", "", 405, "method_not_allowed"},
		{"POST stream", "alice-token", "POST", "/api/chat/c/stream", "", 405, "method_not_allowed"},
		{"unknown route", "alice-token", "GET", "/api/chat/c/other", "", 404, "not_found"},
		{"stop an unknown chat", "alice-token", "POST", "/api/chat/nochat/stop", "", 404, "session_not_found"},
	}
	for _, c := range cases {
		status, body := call(t, ts, c.token, c.method, c.path, c.body)
		if status != c.status || (c.code != "" && body["code"] != c.code) || body["detail"] == "" || body["detail"] == nil {
			t.Errorf("%s: %d %v, want %d %s", c.name, status, body, c.status, c.code)
		}
	}
	// Nothing was made: the chat "c" does not exist.
	if status, _ := call(t, ts, "alice-token", "GET", "/sessions/c", ""); status != http.StatusNotFound {
		t.Fatalf("a refused request made the session: %d", status)
	}

	// An idle chat's answer is refused with 409, and one that does not
	// answer the pending wait with 400.
	open(t, ts, "POST", "/api/chat", userMessage("idle", "hi")).rest(t)
	if status, body := call(t, ts, "alice-token", "POST", "/api/chat", approvalBody("idle", "m", "call", "approval_x", true)); status != 409 || body["code"] != "nothing_to_answer" {
		t.Fatalf("answer to an idle chat: %d %v", status, body)
	}
	first := open(t, ts, "POST", "/api/chat", userMessage("waiting", "approve")).rest(t)
	if status, body := call(t, ts, "alice-token", "POST", "/api/chat", approvalBody("waiting", "m", "call", "approval_other", true)); status != 400 || !strings.Contains(body["detail"].(string), "approval") {
		t.Fatalf("a wrong answer: %d %v", status, body)
	}
	if status, body := call(t, ts, "alice-token", "POST", "/api/chat", userMessage("waiting", "hi")); status != 409 || body["code"] != "session_busy" {
		t.Fatalf("a new message while waiting: %d %v", status, body)
	}
	_ = first

	// Off: the routes are not there.
	off := servertest.Start(t, "", servertest.Setup{Config: func(c *config.Config) {}})
	if status, _ := call(t, off, "", "POST", "/api/chat", userMessage("c", "hi")); status != http.StatusNotFound {
		t.Fatalf("useChat off: %d", status)
	}
}

// /agent lists the door when it is on, and the OpenAPI document has it.
func TestListedInAgentAndOpenAPI(t *testing.T) {
	ts := servertest.Start(t, "", setup())
	status, agent := call(t, ts, "", "GET", "/agent", "")
	if endpoints, _ := agent["endpoints"].(map[string]any); status != 200 || endpoints["useChat"] != "/api/chat" {
		t.Fatalf("/agent: %d %v", status, agent)
	}
	status, doc := call(t, ts, "alice-token", "GET", "/openapi.json", "")
	paths, _ := doc["paths"].(map[string]any)
	if status != 200 || paths["/api/chat"] == nil || paths["/api/chat/{chatId}/stop"] == nil {
		t.Fatalf("/openapi.json: %d, paths %v", status, len(paths))
	}
}
