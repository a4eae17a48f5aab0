package main

// End-to-end test of the Google ADK JS adapter (adapters/node/adk.js): the
// example folder examples/adk-js, its LlmAgent on the scripted fake model
// (HARNEST_FAKE_MODEL=1), served by two real "harnest serve" replicas on one
// real Redis, through /responses (SSE and JSON), /agui and A2A: streaming,
// a tool call, the confirmation of send_reply approved on the other replica,
// and session state carried between turns served by different workers.

import (
	"net/http"
	"testing"
	"time"

	"github.com/harnest/harnest/internal/testutil"
)

// adkExample is the example folder the test serves.
const adkExample = "../../examples/adk-js"

func needADK(t *testing.T) { t.Helper(); needAdapterPackage(t, "@google/adk") }

// adkFolder is the example with thinking shown.
func adkFolder(t *testing.T) string {
	t.Helper()
	return adapterFolder(t, adkExample, "  output:\n    thinking: true\n")
}

// adkRun is the two replicas the ADK conversations run on.
type adkRun struct{ adapterReplicas }

func TestADKAgentAcrossReplicas(t *testing.T) {
	t.Parallel()
	needADK(t)
	m := &adkRun{startAdapterReplicas(t, adkFolder(t))}
	// One transport at a time: a turn that waits for a confirmation holds
	// one of a replica's two workers.
	t.Run("responses SSE", m.viaSSE)
	t.Run("responses JSON", m.viaJSON)
	t.Run("agui", m.viaAGUI)
	t.Run("a2a", m.viaA2A)
	t.Run("live", func(t *testing.T) { m.liveConversation(t, "hi there", "send a reply to bob") })
	m.a.mustStop(t)
	m.b.mustStop(t)
}

// mustHaveState checks that the session's state on h has key = want (as JSON).
func mustHaveState(t *testing.T, h *harnest, sid, key, want string) {
	t.Helper()
	r := h.get(t, "/sessions/"+sid)
	mustStatus(t, r, http.StatusOK)
	state, _ := r.JSON(t)["state"].(map[string]any)
	if got := js(state[key]); got != want {
		t.Fatalf("session state %s = %s, want %s: %s", key, got, want, r.Body)
	}
}

func (m *adkRun) viaSSE(t *testing.T) {
	// Streaming: thinking, several text deltas, the adapter's metadata.
	frames := streamTurn(t, m.a, "hi there", "", "completed")
	text, n := textOf(frames)
	if n < 2 || text != "Hello! You said: hi there" {
		t.Fatalf("%d text deltas making %q, want several making %q: %v", n, text, "Hello! You said: hi there", eventNames(frames))
	}
	thinking := framesOf(frames, "response.thinking.delta")
	if len(thinking) != 1 || thinking[0].Data["delta"] != "Reading the message." {
		t.Fatalf("thinking frames %v, want one \"Reading the message.\"", thinking)
	}
	meta := framesOf(frames, "response.agent_metadata")
	if len(meta) != 1 || meta[0].Data["framework"] != "google-adk" || meta[0].Data["model"] != "fake-adk-model" {
		t.Fatalf("metadata frames %v, want one from google-adk with the fake model", meta)
	}
	sid := frames[0].Data["sessionId"].(string)

	// A tool call on B, then another on A: the lookup count in the session
	// state goes on from where the other replica's worker left it.
	for i, h := range []*harnest{m.b, m.a} {
		frames = streamTurn(t, h, "look up harnest", sid, "completed")
		calls, results := framesOf(frames, "response.tool_call"), framesOf(frames, "response.tool_result")
		if len(calls) != 1 || len(results) != 1 || calls[0].Data["name"] != "lookup" ||
			js(calls[0].Data["arguments"]) != `{"query":"harnest"}` || results[0].Data["callId"] != calls[0].Data["id"] ||
			js(results[0].Data["output"]) != `{"entries":7,"query":"harnest"}` {
			t.Fatalf("lookup %d: frames %v, want one lookup call and its result", i+1, eventNames(frames))
		}
		text, _ = textOf(frames)
		mustText(t, "the lookup's answer", text, "The lookup found 7 entries for harnest.")
		mustHaveState(t, m.a, sid, "lookups", js(i+1))
	}

	// The confirmation, asked on A, approved on B.
	frames = streamTurn(t, m.a, "send a reply to bob", sid, "requires_action")
	approvals := framesOf(frames, "approval.requested")
	if len(approvals) != 1 || indexOf(frames, "response.tool_call") > indexOf(frames, "approval.requested") {
		t.Fatalf("frames %v, want send_reply's tool_call then approval.requested", eventNames(frames))
	}
	approval, _ := approvals[0].Data["approval"].(map[string]any)
	mustText(t, "approval.requested action", approval["action"], "send_reply")
	mustText(t, "approval.requested arguments", js(approval["arguments"]), `{"to":"bob"}`)
	final := completed(t, m.b.post(t, "/approvals/"+approval["id"].(string), `{"decision":"approve"}`))
	mustText(t, "the answer after the approval", final["outputText"], "Sent the reply to bob.")
	mustHaveState(t, m.b, sid, "lastReplyTo", `"bob"`)
	mustHaveState(t, m.b, sid, "lookups", "2")
}

func (m *adkRun) viaJSON(t *testing.T) {
	_, v := m.b.completeResponse(t, `{"input":"look up json"}`)
	mustText(t, "the lookup's answer", v["outputText"], "The lookup found 4 entries for json.")
	sid := v["sessionId"].(string)

	// Denied on A: the reply is not sent, and the session goes on.
	r := m.b.post(t, "/responses", `{"input":"send a reply to carol","sessionId":"`+sid+`"}`)
	v, action := pendingAction(t, r, "human_approval")
	mustText(t, "the action", action["action"], "send_reply")
	mustStatus(t, m.a.post(t, "/approvals/"+action["id"].(string), `{"decision":"deny"}`), http.StatusOK)
	receipt, rv := m.b.waitReceipt(t, v, 10*time.Second)
	if rv["status"] != "denied" || rv["outputText"] != "" {
		t.Fatalf("receipt after the denial %s", receipt.Body)
	}

	// Approved on A.
	r = m.b.post(t, "/responses", `{"input":"send a reply to dave","sessionId":"`+sid+`"}`)
	_, action = pendingAction(t, r, "human_approval")
	final := completed(t, m.a.post(t, "/approvals/"+action["id"].(string), `{"decision":"approve"}`))
	mustText(t, "the answer after the approval", final["outputText"], "Sent the reply to dave.")
	mustHaveState(t, m.a, sid, "lastReplyTo", `"dave"`)
}

func (m *adkRun) viaAGUI(t *testing.T) {
	thread := "adk-e2e-agui-" + testutil.Prefix(t)
	message := func(id, text string) any { return map[string]any{"id": id, "role": "user", "content": text} }
	run := func(h *harnest, runID string, messages []any, resume any) []map[string]any {
		t.Helper()
		in := map[string]any{"threadId": thread, "runId": runID, "protocolVersion": "1.0", "messages": messages,
			"state": map[string]any{}, "tools": []any{}, "context": []any{}}
		if resume != nil {
			in["resume"] = resume
		}
		return aguiRun(t, h, in)
	}
	events := run(m.a, "run-1", []any{message("u1", "look up agui")}, nil)
	if aguiJoined(events, "TOOL_CALL_START", "toolCallName") != "lookup" {
		t.Fatalf("run 1 streamed no lookup call: %s", js(events))
	}
	mustText(t, "run 1 text", aguiJoined(events, "TEXT_MESSAGE_CONTENT", "delta"), "The lookup found 4 entries for agui.")

	events = run(m.a, "run-2", []any{message("u1", "look up agui"), message("u2", "send a reply to erin")}, nil)
	outcome, _ := events[len(events)-1]["outcome"].(map[string]any)
	interrupts, _ := outcome["interrupts"].([]any)
	if outcome["type"] != "interrupt" || len(interrupts) != 1 {
		t.Fatalf("run 2 ends with outcome %s, want one interrupt", js(outcome))
	}
	interrupt := interrupts[0].(map[string]any)
	resume := []any{map[string]any{"interruptId": interrupt["id"], "status": "resolved", "payload": map[string]any{"approved": true}}}
	events = run(m.b, "run-3", nil, resume)
	mustText(t, "run 3 text", aguiJoined(events, "TEXT_MESSAGE_CONTENT", "delta"), "Sent the reply to erin.")
	mustHaveState(t, m.b, thread, "lookups", "1")
	mustHaveState(t, m.b, thread, "lastReplyTo", `"erin"`)
}

func (m *adkRun) viaA2A(t *testing.T) {
	first := a2aSend(t, m.a, "hello over a2a")
	mustText(t, "turn 1 text", first.text(), "Hello! You said: hello over a2a")
	if first.Message == nil || first.Message.ContextID == "" {
		t.Fatalf("turn 1 answered no message with a context: %s", js(first))
	}
	ctx := first.Message.ContextID

	second := a2aSend(t, m.a, "send a reply to fay", "contextId", ctx)
	task := second.Task
	if task == nil || task.Status.State != "TASK_STATE_INPUT_REQUIRED" || task.Status.Message == nil {
		t.Fatalf("turn 2 answered %s, want an input-required task", js(second))
	}
	done := a2aSend(t, m.b, "approve", "taskId", task.ID, "contextId", ctx)
	if done.Task == nil || done.Task.ID != task.ID || done.Task.Status.State != "TASK_STATE_COMPLETED" {
		t.Fatalf("the approval on B answered %s, want task %s completed", js(done), task.ID)
	}
	mustText(t, "turn 2 artifact", done.text(), "Sent the reply to fay.")
	mustText(t, "turn 3 text", a2aSend(t, m.b, "look up it", "contextId", ctx).text(), "The lookup found 2 entries for it.")
	mustHaveState(t, m.b, ctx, "lastReplyTo", `"fay"`)
}
