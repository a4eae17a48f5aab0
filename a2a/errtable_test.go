package a2a_test

import (
	"strings"
	"testing"
)

// errorPath is one way to make a binding answer an error, and the answer
// A2A 1.0 (§5.4, §9.5, §11.6) and 0.3 (§8) give it: the JSON-RPC code or
// the HTTP status and google.rpc status, and the ErrorInfo reason.
type errorPath struct {
	name         string
	method, path string
	body         string
	headers      []string
	stream       bool   // a JSON-RPC streaming call: the error is the stream's one event
	code         int    // JSON-RPC error.code, or for 0.3 HTTP+JSON the body's code
	http         int    // HTTP+JSON status
	status       string // HTTP+JSON 1.0 error.status
	reason       string // 1.0 ErrorInfo reason
}

func rpcBody(method, params string) string {
	return `{"jsonrpc":"2.0","id":"e","method":"` + method + `","params":` + params + `}`
}

// errorPaths are taken from the spec's tables; DONE stands for a completed
// task's ID, EXT for a card whose extension is required.
var errorPaths = []errorPath{
	// JSON-RPC 2.0 errors.
	{name: "parse error", method: "POST", path: "/a2a", body: `{"jsonrpc":`, code: -32700, reason: "PARSE_ERROR"},
	{name: "batch", method: "POST", path: "/a2a", body: `[]`, code: -32600, reason: "INVALID_REQUEST"},
	{name: "method not a string", method: "POST", path: "/a2a", body: `{"jsonrpc":"2.0","id":"e","method":1}`, code: -32600, reason: "INVALID_REQUEST"},
	{name: "no jsonrpc", method: "POST", path: "/a2a", body: `{"id":"e","method":"GetTask"}`, code: -32600, reason: "INVALID_REQUEST"},
	{name: "unknown method", method: "POST", path: "/a2a", body: rpcBody("Frobnicate", `{}`), headers: []string{"A2A-Version", "1.0"}, code: -32601, reason: "METHOD_NOT_FOUND"},
	{name: "invalid params", method: "POST", path: "/a2a", body: rpcBody("GetTask", `{"id":""}`), headers: []string{"A2A-Version", "1.0"}, code: -32602, reason: "INVALID_PARAMS"},
	// A2A errors over JSON-RPC 1.0.
	{name: "task not found", method: "POST", path: "/a2a", body: rpcBody("GetTask", `{"id":"nope"}`), headers: []string{"A2A-Version", "1.0"}, code: -32001, reason: "TASK_NOT_FOUND"},
	{name: "task not cancelable", method: "POST", path: "/a2a", body: rpcBody("CancelTask", `{"id":"DONE"}`), headers: []string{"A2A-Version", "1.0"}, code: -32002, reason: "TASK_NOT_CANCELABLE"},
	{name: "push config of a missing task", method: "POST", path: "/a2a", body: rpcBody("CreateTaskPushNotificationConfig", `{"taskId":"nope","url":"https://example.com/hook"}`), headers: []string{"A2A-Version", "1.0"}, code: -32001, reason: "TASK_NOT_FOUND"},
	{name: "push config to a refused URL", method: "POST", path: "/a2a", body: rpcBody("CreateTaskPushNotificationConfig", `{"taskId":"DONE","url":"http://10.0.0.1/hook"}`), headers: []string{"A2A-Version", "1.0"}, code: -32602, reason: "INVALID_PARAMS"},
	{name: "subscribe to a finished task", method: "POST", path: "/a2a", body: rpcBody("SubscribeToTask", `{"id":"DONE"}`), headers: []string{"A2A-Version", "1.0"}, stream: true, code: -32004, reason: "UNSUPPORTED_OPERATION"},
	{name: "message to a finished task", method: "POST", path: "/a2a", body: rpcBody("SendMessage", `{"message":{"messageId":"z","role":"ROLE_USER","taskId":"DONE","parts":[{"text":"z"}]}}`), headers: []string{"A2A-Version", "1.0"}, code: -32004, reason: "UNSUPPORTED_OPERATION"},
	{name: "extended card not declared", method: "POST", path: "/a2a", body: rpcBody("GetExtendedAgentCard", `{}`), headers: []string{"A2A-Version", "1.0"}, code: -32004, reason: "UNSUPPORTED_OPERATION"},
	{name: "stream with a bad request", method: "POST", path: "/a2a", body: rpcBody("SendStreamingMessage", `{"message":{"role":"ROLE_USER"}}`), headers: []string{"A2A-Version", "1.0"}, stream: true, code: -32602, reason: "INVALID_PARAMS"},
	{name: "version not supported", method: "POST", path: "/a2a", body: rpcBody("GetTask", `{"id":"nope"}`), headers: []string{"A2A-Version", "0.9"}, code: -32009, reason: "VERSION_NOT_SUPPORTED"},
	{name: "extension required", method: "POST", path: "/a2a", body: rpcBody("GetTask", `{"id":"nope"}`), headers: []string{"A2A-Version", "1.0", "EXT", "1"}, code: -32008, reason: "EXTENSION_SUPPORT_REQUIRED"},
	// A2A errors over JSON-RPC 0.3 (no ErrorInfo: 0.3 leaves data free).
	{name: "0.3 task not found", method: "POST", path: "/a2a", body: rpcBody("tasks/get", `{"id":"nope"}`), code: -32001},
	{name: "0.3 task not cancelable", method: "POST", path: "/a2a", body: rpcBody("tasks/cancel", `{"id":"DONE"}`), code: -32002},
	{name: "0.3 push config of a missing task", method: "POST", path: "/a2a", body: rpcBody("tasks/pushNotificationConfig/get", `{"id":"nope"}`), code: -32001},
	{name: "0.3 resubscribe to a finished task", method: "POST", path: "/a2a", body: rpcBody("tasks/resubscribe", `{"id":"DONE"}`), stream: true, code: -32004},
	{name: "0.3 extended card not configured", method: "POST", path: "/a2a", body: rpcBody("agent/getAuthenticatedExtendedCard", `{}`), code: -32007},
	{name: "0.3 unknown method", method: "POST", path: "/a2a", body: rpcBody("tasks/frob", `{}`), code: -32601},
	// HTTP+JSON 1.0: google.rpc.Status.
	{name: "REST task not found", method: "GET", path: "/rest/tasks/nope", http: 404, status: "NOT_FOUND", reason: "TASK_NOT_FOUND"},
	{name: "REST task not cancelable", method: "POST", path: "/rest/tasks/DONE:cancel", http: 409, status: "FAILED_PRECONDITION", reason: "TASK_NOT_CANCELABLE"},
	{name: "REST push config of a missing task", method: "POST", path: "/rest/tasks/nope/pushNotificationConfigs", body: `{"url":"https://example.com/hook"}`, http: 404, status: "NOT_FOUND", reason: "TASK_NOT_FOUND"},
	{name: "REST subscribe to a finished task", method: "POST", path: "/rest/tasks/DONE:subscribe", http: 400, status: "FAILED_PRECONDITION", reason: "UNSUPPORTED_OPERATION"},
	{name: "REST message to a finished task", method: "POST", path: "/rest/message:send", body: `{"message":{"messageId":"z","role":"ROLE_USER","taskId":"DONE","parts":[{"text":"z"}]}}`, http: 400, status: "FAILED_PRECONDITION", reason: "UNSUPPORTED_OPERATION"},
	{name: "REST extended card not declared", method: "GET", path: "/rest/extendedAgentCard", http: 400, status: "FAILED_PRECONDITION", reason: "UNSUPPORTED_OPERATION"},
	{name: "REST version not supported", method: "GET", path: "/rest/tasks/nope", headers: []string{"A2A-Version", "0.9"}, http: 400, status: "FAILED_PRECONDITION", reason: "VERSION_NOT_SUPPORTED"},
	{name: "REST extension required", method: "GET", path: "/rest/tasks/nope", headers: []string{"EXT", "1"}, http: 400, status: "FAILED_PRECONDITION", reason: "EXTENSION_SUPPORT_REQUIRED"},
	{name: "REST malformed body", method: "POST", path: "/rest/message:send", body: `{"message":`, http: 400, status: "INVALID_ARGUMENT", reason: "INVALID_PARAMS"},
	{name: "REST invalid query", method: "GET", path: "/rest/tasks?pageSize=-1", http: 400, status: "INVALID_ARGUMENT", reason: "INVALID_PARAMS"},
	{name: "REST unknown task action", method: "POST", path: "/rest/tasks/DONE:frob", http: 501, status: "UNIMPLEMENTED", reason: "METHOD_NOT_FOUND"},
	// HTTP+JSON 0.3: {code, message} with the status.
	{name: "REST 0.3 task not found", method: "GET", path: "/rest/v1/tasks/nope", http: 404, code: -32001},
	{name: "REST 0.3 task not cancelable", method: "POST", path: "/rest/v1/tasks/DONE:cancel", http: 409, code: -32002},
	{name: "REST 0.3 extended card not configured", method: "GET", path: "/rest/v1/card", http: 400, code: -32007},
}

func TestErrorPathsMatchTheSpec(t *testing.T) {
	h := newHarness(t, setup{})
	ext := testCard("http://127.0.0.1:1907", true)
	ext["capabilities"] = map[string]any{"streaming": true, "extensions": []any{
		map[string]any{"uri": "https://example.com/ext/must/v1", "required": true}}}
	hExt := newHarness(t, setup{card: ext})
	_, _, ev := h.sse("POST", "/rest/message:stream", `{"message":{"messageId":"done","role":"ROLE_USER","parts":[{"text":"done"}]}}`)
	done := str(ev[0], "task", "id")
	if done == "" || str(ev[len(ev)-1], "statusUpdate", "status", "state") != stateCompleted {
		t.Fatalf("setup stream %v", ev)
	}
	for _, c := range errorPaths {
		t.Run(c.name, func(t *testing.T) {
			on, headers := h, []string(nil)
			for i := 0; i+1 < len(c.headers); i += 2 {
				if c.headers[i] == "EXT" {
					on = hExt
					continue
				}
				headers = append(headers, c.headers[i], c.headers[i+1])
			}
			path, body := strings.ReplaceAll(c.path, "DONE", done), strings.ReplaceAll(c.body, "DONE", done)
			if strings.HasPrefix(path, "/a2a") {
				checkRPCError(t, on, c, body, headers)
				return
			}
			checkRESTError(t, on, c, path, body, headers)
		})
	}
}

// gotError is what a checked error answer said.
type gotError struct {
	message    string
	details    []any  // 1.0: error.data or error.details
	retryInfo  bool   // details hold a google.rpc.RetryInfo
	retryAfter string // HTTP+JSON: the Retry-After header
}

func detailsOf(message string, details any) gotError {
	got := gotError{message: message}
	got.details, _ = details.([]any)
	for _, d := range got.details {
		if str(d, "@type") == "type.googleapis.com/google.rpc.RetryInfo" && strings.HasSuffix(str(d, "retryDelay"), "s") {
			got.retryInfo = true
		}
	}
	return got
}

// errorOf sends an error path's request to h and checks the answer as
// TestErrorPathsMatchTheSpec does.
func (h *harness) errorOf(t *testing.T, c errorPath) gotError {
	t.Helper()
	if strings.HasPrefix(c.path, "/a2a") {
		return checkRPCError(t, h, c, c.body, c.headers)
	}
	return checkRESTError(t, h, c, c.path, c.body, c.headers)
}

func checkRPCError(t *testing.T, h *harness, c errorPath, body string, headers []string) gotError {
	t.Helper()
	code, ct, ev := h.sse(c.method, c.path, body, headers...)
	wantCT := "application/json"
	if c.stream {
		wantCT = "text/event-stream"
	}
	if code != 200 || ct != wantCT || len(ev) != 1 {
		t.Fatalf("HTTP %d %s, %d bodies; want 200 %s and one JSON-RPC error", code, ct, len(ev), wantCT)
	}
	e := ev[0]
	if dig(e, "jsonrpc") != "2.0" || dig(e, "result") != nil || dig(e, "error", "code") != float64(c.code) || str(e, "error", "message") == "" {
		t.Fatalf("error %v, want code %d with a message", e, c.code)
	}
	if c.code != -32700 && c.code != -32600 && dig(e, "id") != "e" {
		t.Errorf("id %v, want the request's", dig(e, "id"))
	}
	if c.reason == "" {
		if dig(e, "error", "data") != nil {
			t.Errorf("0.3 error with data %v", dig(e, "error", "data"))
		}
		return gotError{message: str(e, "error", "message")}
	}
	if str(e, "error", "data", 0, "@type") != "type.googleapis.com/google.rpc.ErrorInfo" ||
		str(e, "error", "data", 0, "reason") != c.reason || str(e, "error", "data", 0, "domain") != "a2a-protocol.org" {
		t.Errorf("error.data %v, want an ErrorInfo with reason %s", dig(e, "error", "data"), c.reason)
	}
	return detailsOf(str(e, "error", "message"), dig(e, "error", "data"))
}

func checkRESTError(t *testing.T, h *harness, c errorPath, path, body string, headers []string) gotError {
	t.Helper()
	r := h.do(c.method, path, body, headers...)
	if r.Status != c.http || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("HTTP %d %s %s, want %d application/json", r.Status, r.Header.Get("Content-Type"), r.Body, c.http)
	}
	e := r.JSON(t)
	if c.status == "" { // 0.3
		if dig(e, "code") != float64(c.code) || str(e, "message") == "" {
			t.Errorf("0.3 body %v, want {code: %d, message}", e, c.code)
		}
		return gotError{message: str(e, "message"), retryAfter: r.Header.Get("Retry-After")}
	}
	if dig(e, "error", "code") != float64(c.http) || str(e, "error", "status") != c.status || str(e, "error", "message") == "" {
		t.Errorf("google.rpc.Status %v, want code %d status %s", e, c.http, c.status)
	}
	if str(e, "error", "details", 0, "@type") != "type.googleapis.com/google.rpc.ErrorInfo" ||
		str(e, "error", "details", 0, "reason") != c.reason || str(e, "error", "details", 0, "domain") != "a2a-protocol.org" {
		t.Errorf("details %v, want an ErrorInfo with reason %s", dig(e, "error", "details"), c.reason)
	}
	got := detailsOf(str(e, "error", "message"), dig(e, "error", "details"))
	got.retryAfter = r.Header.Get("Retry-After")
	return got
}
