package main

// End-to-end test of the LangGraph JS adapter (adapters/node/langgraph.js):
// the example folder examples/langgraph-js, its graph on the scripted fake
// model (HARNEST_FAKE_MODEL=1), served by two real "harnest serve" replicas
// on one real Redis, through /responses (SSE and JSON), /agui and A2A:
// streaming, a tool call, the interrupt before send_message approved on the
// other replica, and the graph's `turns` state carried between turns served
// by different workers and replicas.

import (
	"context"
	"net/http"
	"os/exec"
	"testing"
	"time"

	"github.com/harnest/harnest/internal/testutil"
)

// graphExample is the example folder the test serves.
const graphExample = "../../examples/langgraph-js"

func needLangGraph(t *testing.T) { t.Helper(); needAdapterPackage(t, "@langchain/langgraph") }

func graphFolder(t *testing.T) string { t.Helper(); return adapterFolder(t, graphExample, "") }

// TestNodeAdapterTests runs the adapters' own node tests
// (adapters/node/test: the protocol core and the LangGraph adapter), so CI
// runs them with the Go tests.
func TestNodeAdapterTests(t *testing.T) {
	t.Parallel()
	needLangGraph(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "--test", "test/")
	cmd.Dir = "../../adapters/node"
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("node --test in adapters/node: %v\n%s", err, out)
	}
}

// graphRun is the two replicas the LangGraph conversations run on.
type graphRun struct{ adapterReplicas }

func TestLangGraphAgentAcrossReplicas(t *testing.T) {
	t.Parallel()
	needLangGraph(t)
	m := &graphRun{startAdapterReplicas(t, graphFolder(t))}
	// One transport at a time: a turn that waits for an approval holds one
	// of a replica's two workers.
	t.Run("responses SSE", m.viaSSE)
	t.Run("responses JSON", m.viaJSON)
	t.Run("agui", m.viaAGUI)
	t.Run("a2a", m.viaA2A)
	t.Run("live", func(t *testing.T) { m.liveConversation(t, "hi there", "send a note to bob") })
	m.a.mustStop(t)
	m.b.mustStop(t)
}

// graphTurns checks that the session's state on h counts want turns.
func graphTurns(t *testing.T, h *harnest, sid string, want int) {
	t.Helper()
	r := h.get(t, "/sessions/"+sid)
	mustStatus(t, r, http.StatusOK)
	state, _ := r.JSON(t)["state"].(map[string]any)
	if got := js(state["turns"]); got != js(want) {
		t.Fatalf("session state turns = %s, want %d: %s", got, want, r.Body)
	}
}

// greetingFor is the fake model's answer to a greeting on turn n.
func greetingFor(n int) string {
	return "Hello! This is turn " + js(n) + " of our conversation."
}

func (m *graphRun) viaSSE(t *testing.T) {
	// Streaming: several text deltas, the adapter's metadata, the state.
	frames := streamTurn(t, m.a, "hi there", "", "completed")
	text, n := textOf(frames)
	if n < 2 || text != greetingFor(1) {
		t.Fatalf("%d text deltas making %q, want several making %q: %v", n, text, greetingFor(1), eventNames(frames))
	}
	meta := framesOf(frames, "response.agent_metadata")
	if len(meta) == 0 || meta[0].Data["framework"] != "langgraph" {
		t.Fatalf("metadata frames %v, want the langgraph framework", meta)
	}
	sid := frames[0].Data["sessionId"].(string)
	graphTurns(t, m.a, sid, 1)

	// A tool call on B: the turn count goes on from A's worker.
	frames = streamTurn(t, m.b, "Please look up oslo", sid, "completed")
	calls, results := framesOf(frames, "response.tool_call"), framesOf(frames, "response.tool_result")
	if len(calls) != 1 || len(results) != 1 || calls[0].Data["name"] != "lookup" ||
		js(calls[0].Data["arguments"]) != `{"query":"oslo"}` || results[0].Data["callId"] != calls[0].Data["id"] ||
		js(results[0].Data["output"]) != `{"entries":3,"query":"oslo"}` {
		t.Fatalf("frames %v, want one lookup call and its result", eventNames(frames))
	}
	text, _ = textOf(frames)
	mustText(t, "the lookup's answer", text, "The lookup found 3 entries.")
	graphTurns(t, m.b, sid, 2)

	// The interrupt, asked on A, approved on B.
	frames = streamTurn(t, m.a, "send a note to bob", sid, "requires_action")
	approvals := framesOf(frames, "approval.requested")
	if len(approvals) != 1 {
		t.Fatalf("frames %v, want one approval.requested", eventNames(frames))
	}
	approval, _ := approvals[0].Data["approval"].(map[string]any)
	mustText(t, "approval.requested action", approval["action"], "send_message")
	mustText(t, "approval.requested message", approval["message"], "Send the message to bob?")
	final := completed(t, m.b.post(t, "/approvals/"+approval["id"].(string), `{"decision":"approve"}`))
	mustText(t, "the answer after the approval", final["outputText"], "Sent to bob.")

	// State carried: the fourth turn, on B, knows it is the fourth.
	frames = streamTurn(t, m.b, "hello again", sid, "completed")
	text, _ = textOf(frames)
	mustText(t, "turn 4", text, greetingFor(4))
	graphTurns(t, m.a, sid, 4)
}

func (m *graphRun) viaJSON(t *testing.T) {
	_, v := m.b.completeResponse(t, `{"input":"Please look up json"}`)
	mustText(t, "the lookup's answer", v["outputText"], "The lookup found 3 entries.")
	sid := v["sessionId"].(string)

	// Denied on A: the message is not sent, and the session goes on.
	r := m.b.post(t, "/responses", `{"input":"send a note to carol","sessionId":"`+sid+`"}`)
	v, action := pendingAction(t, r, "human_approval")
	mustText(t, "the action", action["action"], "send_message")
	mustStatus(t, m.a.post(t, "/approvals/"+action["id"].(string), `{"decision":"deny"}`), http.StatusOK)
	receipt, rv := m.b.waitReceipt(t, v, 10*time.Second)
	if rv["status"] != "denied" || rv["outputText"] != "" {
		t.Fatalf("receipt after the denial %s", receipt.Body)
	}

	// Approved on A.
	r = m.b.post(t, "/responses", `{"input":"send a note to dave","sessionId":"`+sid+`"}`)
	_, action = pendingAction(t, r, "human_approval")
	final := completed(t, m.a.post(t, "/approvals/"+action["id"].(string), `{"decision":"approve"}`))
	mustText(t, "the answer after the approval", final["outputText"], "Sent to dave.")
	// The denied turn's state delta was discarded with its output: two turns count.
	graphTurns(t, m.a, sid, 2)
}

func (m *graphRun) viaAGUI(t *testing.T) {
	thread := "langgraph-e2e-agui-" + testutil.Prefix(t)
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
	events := run(m.a, "run-1", []any{message("u1", "Please look up agui")}, nil)
	if aguiJoined(events, "TOOL_CALL_START", "toolCallName") != "lookup" {
		t.Fatalf("run 1 streamed no lookup call: %s", js(events))
	}
	mustText(t, "run 1 text", aguiJoined(events, "TEXT_MESSAGE_CONTENT", "delta"), "The lookup found 3 entries.")

	events = run(m.a, "run-2", []any{message("u1", "Please look up agui"), message("u2", "send a note to erin")}, nil)
	outcome, _ := events[len(events)-1]["outcome"].(map[string]any)
	interrupts, _ := outcome["interrupts"].([]any)
	if outcome["type"] != "interrupt" || len(interrupts) != 1 {
		t.Fatalf("run 2 ends with outcome %s, want one interrupt", js(outcome))
	}
	interrupt := interrupts[0].(map[string]any)
	resume := []any{map[string]any{"interruptId": interrupt["id"], "status": "resolved", "payload": map[string]any{"approved": true}}}
	events = run(m.b, "run-3", nil, resume)
	mustText(t, "run 3 text", aguiJoined(events, "TEXT_MESSAGE_CONTENT", "delta"), "Sent to erin.")
	graphTurns(t, m.b, thread, 2)
}

func (m *graphRun) viaA2A(t *testing.T) {
	first := a2aSend(t, m.a, "hello over a2a")
	mustText(t, "turn 1 text", first.text(), greetingFor(1))
	if first.Message == nil || first.Message.ContextID == "" {
		t.Fatalf("turn 1 answered no message with a context: %s", js(first))
	}
	ctx := first.Message.ContextID

	second := a2aSend(t, m.a, "send a note to fay", "contextId", ctx)
	task := second.Task
	if task == nil || task.Status.State != "TASK_STATE_INPUT_REQUIRED" || task.Status.Message == nil {
		t.Fatalf("turn 2 answered %s, want an input-required task", js(second))
	}
	done := a2aSend(t, m.b, "approve", "taskId", task.ID, "contextId", ctx)
	if done.Task == nil || done.Task.ID != task.ID || done.Task.Status.State != "TASK_STATE_COMPLETED" {
		t.Fatalf("the approval on B answered %s, want task %s completed", js(done), task.ID)
	}
	mustText(t, "turn 2 artifact", done.text(), "Sent to fay.")
	mustText(t, "turn 3 text", a2aSend(t, m.b, "hi from b", "contextId", ctx).text(), greetingFor(3))
	graphTurns(t, m.b, ctx, 3)
}
