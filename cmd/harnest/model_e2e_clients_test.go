package main

// The /live, AG-UI and A2A legs of TestModelConversationAcrossReplicas
// (model_e2e_test.go): a small client of each protocol and the three turns
// over it.

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/harnest/harnest/internal/testutil"
)

// ---------------------------------------------------------------------------
// WS /live

// liveSocket is a /live client.
type liveSocket struct {
	t  *testing.T
	ws *websocket.Conn
}

// dialLive opens /live on h and connects to the session ("" for a new
// one); it returns the socket and the session.
func dialLive(t *testing.T, h *harnest, sessionID string) (*liveSocket, string) {
	t.Helper()
	dialer := websocket.Dialer{HandshakeTimeout: 10 * time.Second}
	ws, _, err := dialer.Dial("ws"+strings.TrimPrefix(h.URL, "http")+"/live", nil)
	if err != nil {
		t.Fatalf("dial %s/live: %v", h.URL, err)
	}
	t.Cleanup(func() { ws.Close() })
	s := &liveSocket{t: t, ws: ws}
	connect := map[string]any{"type": "connect"}
	if sessionID != "" {
		connect["sessionId"] = sessionID
	}
	s.send(connect)
	f := s.until("session.connected")[0]
	sid, _ := f["sessionId"].(string)
	if sid == "" || (sessionID != "" && sid != sessionID) {
		t.Fatalf("connect answered %v", f)
	}
	return s, sid
}

func (s *liveSocket) send(v any) {
	s.t.Helper()
	_ = s.ws.SetWriteDeadline(time.Now().Add(10 * time.Second))
	if err := s.ws.WriteMessage(websocket.TextMessage, []byte(js(v))); err != nil {
		s.t.Fatalf("write to /live: %v", err)
	}
}

// until reads frames up to and including the first of type typ.
func (s *liveSocket) until(typ string) []map[string]any {
	s.t.Helper()
	var frames []map[string]any
	for len(frames) < 1000 {
		_ = s.ws.SetReadDeadline(time.Now().Add(20 * time.Second))
		_, data, err := s.ws.ReadMessage()
		if err != nil {
			s.t.Fatalf("read from /live after %d frames: %v", len(frames), err)
		}
		var f map[string]any
		if err := json.Unmarshal(data, &f); err != nil {
			s.t.Fatalf("frame is not a JSON object: %s", data)
		}
		if frames = append(frames, f); f["type"] == typ {
			return frames
		}
		if f["type"] == "error" {
			s.t.Fatalf("/live sent an error: %s", data)
		}
	}
	s.t.Fatalf("no %s frame in %d frames", typ, len(frames))
	return nil
}

// liveFrame returns the first frame of type typ, or fails.
func liveFrame(t *testing.T, frames []map[string]any, typ string) map[string]any {
	t.Helper()
	for _, f := range frames {
		if f["type"] == typ {
			return f
		}
	}
	t.Fatalf("no %s frame in %s", typ, js(frames))
	return nil
}

func (m *modelRun) viaLive(t *testing.T) {
	turns := turnsFor("live")
	onA, sid := dialLive(t, m.a, "")
	onA.send(map[string]any{"type": "response.create", "input": turns.hello, "requestId": "turn-1"})
	frames := onA.until("response.completed")
	mustText(t, "turn 1 outputText", frames[len(frames)-1]["outputText"], greeting)

	onA.send(map[string]any{"type": "response.create", "input": turns.lookup, "requestId": "turn-2"})
	frames = onA.until("response.completed")
	call, end := liveFrame(t, frames, "response.tool_call"), frames[len(frames)-1]
	approval, _ := liveFrame(t, frames, "approval.requested")["approval"].(map[string]any)
	if call["name"] != "lookup" || js(call["arguments"]) != turns.arguments() || approval["action"] != "lookup" || end["status"] != "requires_action" {
		t.Fatalf("turn 2 on the socket: %s", js(frames))
	}
	if js(approval["arguments"]) != turns.arguments() {
		t.Errorf("approval.requested arguments %s, want the lookup's %s", js(approval["arguments"]), turns.arguments())
	}

	// The approval is answered over HTTP on B; A's socket sees it resolved
	// and the resumed response.
	final := completed(t, m.b.post(t, "/approvals/"+approval["id"].(string), `{"decision":"approve"}`))
	mustText(t, "the approval's answer", final["outputText"], turns.answer())
	frames = onA.until("response.completed")
	resolved, result, end := frames[0], liveFrame(t, frames, "response.tool_result"), frames[len(frames)-1]
	if resolved["type"] != "approval.resolved" || resolved["decision"] != "approve" || js(result["output"]) != turns.toolOutput() ||
		end["status"] != "completed" || end["outputText"] != turns.answer() || end["requestId"] != "turn-2" {
		t.Fatalf("after the approval on B the socket got %s", js(frames))
	}

	onB, _ := dialLive(t, m.b, sid)
	onB.send(map[string]any{"type": "response.create", "input": turns.recall})
	frames = onB.until("response.completed")
	mustText(t, "turn 3 outputText", frames[len(frames)-1]["outputText"], turns.recalled())
	m.finish(t, sid, turns)
}

// ---------------------------------------------------------------------------
// POST /agui

// aguiRun posts a RunAgentInput to /agui on h and returns the run's
// events, which must start with RUN_STARTED and end with RUN_FINISHED.
func aguiRun(t *testing.T, h *harnest, input map[string]any) []map[string]any {
	t.Helper()
	r := h.post(t, "/agui", js(input))
	mustStatus(t, r, http.StatusOK)
	var events []map[string]any
	for _, f := range testutil.ReadSSE(bytes.NewReader(r.Body)) {
		if f.Err != nil {
			t.Fatalf("AG-UI frame is not JSON: %q", f.Raw)
		}
		events = append(events, f.Data)
	}
	if len(events) < 2 || events[0]["type"] != "RUN_STARTED" || events[len(events)-1]["type"] != "RUN_FINISHED" {
		t.Fatalf("run %v is not RUN_STARTED ... RUN_FINISHED: %s", input["runId"], r.Body)
	}
	return events
}

// aguiJoined joins the field of the events of type typ.
func aguiJoined(events []map[string]any, typ, field string) string {
	var b strings.Builder
	for _, e := range events {
		if s, ok := e[field].(string); ok && e["type"] == typ {
			b.WriteString(s)
		}
	}
	return b.String()
}

func (m *modelRun) viaAGUI(t *testing.T) {
	turns := turnsFor("agui")
	const thread = "model-e2e-agui" // the session; the store prefix is the test's own
	message := func(id, role, text string) any { return map[string]any{"id": id, "role": role, "content": text} }
	messages := []any{message("u1", "user", turns.hello)}
	run := func(h *harnest, runID string, resume any) []map[string]any {
		t.Helper()
		in := map[string]any{"threadId": thread, "runId": runID, "protocolVersion": "1.0", "messages": messages,
			"state": map[string]any{}, "tools": []any{}, "context": []any{}}
		if resume != nil {
			in["resume"] = resume
		}
		return aguiRun(t, h, in)
	}
	mustText(t, "run 1 text", aguiJoined(run(m.a, "run-1", nil), "TEXT_MESSAGE_CONTENT", "delta"), greeting)

	messages = append(messages, message("a1", "assistant", greeting), message("u2", "user", turns.lookup))
	events := run(m.a, "run-2", nil)
	if aguiJoined(events, "TOOL_CALL_START", "toolCallName") != "lookup" || aguiJoined(events, "TOOL_CALL_ARGS", "delta") != turns.arguments() {
		t.Fatalf("run 2 did not stream the lookup's call with %s: %s", turns.arguments(), js(events))
	}
	outcome, _ := events[len(events)-1]["outcome"].(map[string]any)
	interrupts, _ := outcome["interrupts"].([]any)
	if outcome["type"] != "interrupt" || len(interrupts) != 1 {
		t.Fatalf("run 2 ends with outcome %s, want one interrupt", js(outcome))
	}
	interrupt := interrupts[0].(map[string]any)
	mustText(t, "the interrupt's reason", interrupt["reason"], "confirmation")
	if action, _ := interrupt["metadata"].(map[string]any)["harnest"].(map[string]any); js(action["arguments"]) != turns.arguments() {
		t.Errorf("the interrupt's metadata.harnest.arguments %s, want the lookup's %s", js(action["arguments"]), turns.arguments())
	}

	// The next run, on B, resumes the interrupt with an approval.
	events = run(m.b, "run-3", []any{map[string]any{"interruptId": interrupt["id"], "status": "resolved", "payload": map[string]any{"approved": true}}})
	if got := aguiJoined(events, "TOOL_CALL_RESULT", "content"); got != turns.toolOutput() {
		t.Fatalf("run 3's tool result %q, want %q: %s", got, turns.toolOutput(), js(events))
	}
	mustText(t, "run 3 text", aguiJoined(events, "TEXT_MESSAGE_CONTENT", "delta"), turns.answer())

	messages = append(messages, message("a2", "assistant", turns.answer()), message("u3", "user", turns.recall))
	mustText(t, "run 4 text", aguiJoined(run(m.b, "run-4", nil), "TEXT_MESSAGE_CONTENT", "delta"), turns.recalled())
	m.finish(t, thread, turns)
}

// ---------------------------------------------------------------------------
// A2A (JSON-RPC, spec 1.0)

// a2aPart, a2aMessage and a2aResult are what the test reads of A2A 1.0
// SendMessage results.
type a2aPart struct {
	Text string         `json:"text"`
	Data map[string]any `json:"data"`
}

type a2aMessage struct {
	ContextID string    `json:"contextId"`
	Parts     []a2aPart `json:"parts"`
}

type a2aResult struct {
	Message *a2aMessage `json:"message"`
	Task    *struct {
		ID     string `json:"id"`
		Status struct {
			State   string      `json:"state"`
			Message *a2aMessage `json:"message"`
		} `json:"status"`
		Artifacts []struct {
			Parts []a2aPart `json:"parts"`
		} `json:"artifacts"`
	} `json:"task"`
}

// text is the answer: the message's text, or the task's artifacts'.
func (r a2aResult) text() string {
	var parts []a2aPart
	if r.Message != nil {
		parts = r.Message.Parts
	} else if r.Task != nil {
		for _, a := range r.Task.Artifacts {
			parts = append(parts, a.Parts...)
		}
	}
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// a2aPath is the path of the served card's JSON-RPC 1.0 interface (its
// host is the folder's, not the replica's test port).
func a2aPath(t *testing.T, h *harnest) string {
	t.Helper()
	r := h.get(t, "/.well-known/agent-card.json")
	mustStatus(t, r, http.StatusOK)
	var card struct {
		SupportedInterfaces []struct{ URL, ProtocolBinding, ProtocolVersion string }
	}
	if err := json.Unmarshal(r.Body, &card); err != nil {
		t.Fatalf("agent card: %v: %s", err, r.Body)
	}
	for _, iface := range card.SupportedInterfaces {
		if u, err := url.Parse(iface.URL); err == nil && iface.ProtocolBinding == "JSONRPC" && iface.ProtocolVersion == "1.0" {
			return u.Path
		}
	}
	t.Fatalf("the agent card declares no JSON-RPC 1.0 interface: %s", r.Body)
	return ""
}

// a2aSend calls SendMessage (blocking) on h with one user text message;
// ids are extra message members (contextId, taskId) as name, value pairs.
func a2aSend(t *testing.T, h *harnest, text string, ids ...string) a2aResult {
	t.Helper()
	// A fresh messageId per message (Prefix is random).
	msg := map[string]any{"messageId": "m-" + testutil.Prefix(t), "role": "ROLE_USER", "parts": []any{map[string]any{"text": text}}}
	for i := 0; i+1 < len(ids); i += 2 {
		msg[ids[i]] = ids[i+1]
	}
	body := js(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": map[string]any{"message": msg}})
	r := h.post(t, a2aPath(t, h), body, "A2A-Version", "1.0")
	mustStatus(t, r, http.StatusOK)
	var reply struct {
		Result *a2aResult
		Error  json.RawMessage
	}
	if err := json.Unmarshal(r.Body, &reply); err != nil || reply.Result == nil || reply.Error != nil {
		t.Fatalf("SendMessage %q answered (%v) %s", text, err, r.Body)
	}
	return *reply.Result
}

func (m *modelRun) viaA2A(t *testing.T) {
	turns := turnsFor("a2a")
	first := a2aSend(t, m.a, turns.hello)
	mustText(t, "turn 1 text", first.text(), greeting)
	if first.Message == nil || first.Message.ContextID == "" {
		t.Fatalf("turn 1 answered no message with a context: %s", js(first))
	}
	ctx := first.Message.ContextID

	second := a2aSend(t, m.a, turns.lookup, "contextId", ctx)
	task := second.Task
	if task == nil || task.Status.State != "TASK_STATE_INPUT_REQUIRED" || task.Status.Message == nil {
		t.Fatalf("turn 2 answered %s, want an input-required task", js(second))
	}
	var wait map[string]any
	for _, p := range task.Status.Message.Parts {
		if p.Data != nil {
			wait = p.Data
		}
	}
	if wait["type"] != "human_approval" || wait["action"] != "lookup" {
		t.Fatalf("the input-required message %s does not ask to approve the lookup", js(task.Status.Message))
	}
	if js(wait["arguments"]) != turns.arguments() {
		t.Errorf("the input-required data part %s lacks the lookup's arguments %s: the human cannot see what they approve", js(wait), turns.arguments())
	}

	// The answer is a message on the same task, sent to B.
	done := a2aSend(t, m.b, "approve", "taskId", task.ID, "contextId", ctx)
	if done.Task == nil || done.Task.ID != task.ID || done.Task.Status.State != "TASK_STATE_COMPLETED" {
		t.Fatalf("the approval on B answered %s, want task %s completed", js(done), task.ID)
	}
	mustText(t, "turn 2 artifact", done.text(), turns.answer())

	mustText(t, "turn 3 text", a2aSend(t, m.b, turns.recall, "contextId", ctx).text(), turns.recalled())
	m.finish(t, ctx, turns)
}
