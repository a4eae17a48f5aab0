package a2a

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/harnest/harnest/runtime"
)

func fixedNow() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 6e6, time.UTC) }

func newTestMapper() *mapper {
	return newMapper(Task{ID: "resp_1", ContextID: "s1", Status: TaskStatus{State: stateSubmitted}}, fixedNow)
}

// describe names each update: "status:STATE[meta]" or "artifact:text[+append][+last]".
func describe(evs []StreamEvent) string {
	var out []string
	for _, e := range evs {
		switch {
		case e.StatusUpdate != nil:
			d := "status:" + strings.TrimPrefix(e.StatusUpdate.Status.State, "TASK_STATE_")
			if e.StatusUpdate.Metadata != nil {
				var m struct {
					Harnest map[string]any `json:"harnest"`
				}
				_ = json.Unmarshal(e.StatusUpdate.Metadata, &m)
				d += "[" + m.Harnest["type"].(string) + "]"
			}
			out = append(out, d)
		case e.ArtifactUpdate != nil:
			a := e.ArtifactUpdate
			d := "artifact:"
			for _, p := range a.Artifact.Parts {
				if p.Text != nil {
					d += *p.Text
				} else {
					d += "<data>"
				}
			}
			if a.Append {
				d += "+append"
			}
			if a.LastChunk {
				d += "+last"
			}
			out = append(out, d)
		}
	}
	return strings.Join(out, " ")
}

func TestMappingCompletedTurn(t *testing.T) {
	m := newTestMapper()
	usage := &runtime.Usage{InputTokens: 1, OutputTokens: 2, TotalTokens: 3}
	events := []runtime.Event{
		{Type: runtime.EventCreated},
		{Type: runtime.EventThinkingDelta, Delta: "hmm"},
		{Type: runtime.EventToolCall, ID: "c1", Name: "search"},
		{Type: runtime.EventToolResult, CallID: "c1", Name: "search"},
		{Type: runtime.EventAgentActivity, Activity: "searching", Agent: "scout"},
		{Type: runtime.EventTextDelta, Delta: "Hello, "},
		{Type: runtime.EventStateDelta},
		{Type: runtime.EventTextDelta, Delta: "world", Agent: "scout"},
		{Type: runtime.EventAgentMetadata, Framework: "adk", Usage: usage},
		{Type: runtime.EventCompleted, Envelope: &runtime.Envelope{EnvelopeBody: runtime.EnvelopeBody{
			Status: runtime.StatusCompleted, Usage: usage, Result: json.RawMessage(`{"ok":true}`)}}},
	}
	var got []string
	for i, e := range events {
		e.Sequence = i
		got = append(got, describe(m.apply(frameOf(e))))
	}
	want := []string{
		"status:WORKING", "status:WORKING[thinking]", "", "", "status:WORKING[agent_activity]",
		"artifact:Hello, ", "", "artifact:world+append", "status:WORKING[agent_metadata]",
		"artifact:<data>+append+last status:COMPLETED",
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("event %d (%s): %q, want %q", i, events[i].Type, got[i], want[i])
		}
	}
	if len(m.task.Artifacts) != 1 || len(m.task.Artifacts[0].Parts) != 2 || *m.task.Artifacts[0].Parts[0].Text != "Hello, world" {
		t.Fatalf("artifact snapshot %+v", m.task.Artifacts)
	}
	if m.task.Status.State != stateCompleted || m.seq != len(events)-1 {
		t.Fatalf("snapshot state %s seq %d", m.task.Status.State, m.seq)
	}
	// Replaying what was folded changes nothing.
	if evs := m.apply(frameOf(runtime.Event{Type: runtime.EventTextDelta, Delta: "x", Sequence: 5})); evs != nil {
		t.Fatalf("replayed event made %v", describe(evs))
	}
}

// The same events read back from the log (JSON) fold to the same task.
func TestMappingFromLogMatchesLocal(t *testing.T) {
	local, logged := newTestMapper(), newTestMapper()
	events := []runtime.Event{
		{Type: runtime.EventCreated},
		{Type: runtime.EventTextDelta, Delta: "a"},
		{Type: runtime.EventTextDelta, Delta: "b"},
		{Type: runtime.EventCompleted, Envelope: &runtime.Envelope{EnvelopeBody: runtime.EnvelopeBody{
			Status: runtime.StatusRequiresAction, RequiredAction: &runtime.RequiredAction{
				Type: "client_tool", ID: "client_tool_1", CallID: "c", Name: "pick", Arguments: json.RawMessage(`{"n":1}`)}}}},
	}
	for i, e := range events {
		e.Sequence = i
		a := describe(local.apply(frameOf(e)))
		b, _ := e.JSON()
		c := describe(logged.apply(loggedFrame(runtime.Frame{Type: e.Type, Sequence: i, JSON: b})))
		if a != c {
			t.Fatalf("event %d: local %q, from the log %q", i, a, c)
		}
	}
	x, _ := json.Marshal(local.task)
	y, _ := json.Marshal(logged.task)
	if string(x) != string(y) {
		t.Fatalf("snapshots differ:\n%s\n%s", x, y)
	}
	if local.task.Status.State != stateInputRequired || local.wait == nil || local.wait.ID != "client_tool_1" {
		t.Fatalf("not waiting for the client tool: %+v %+v", local.task.Status, local.wait)
	}
	var data map[string]any
	_ = json.Unmarshal(local.task.Status.Message.Parts[1].Data, &data)
	if data["type"] != "client_tool" || data["name"] != "pick" {
		t.Fatalf("input request %v", data)
	}
	// Resumed: the next delta says WORKING first.
	local.resume(Message{MessageID: "r", Role: roleUser, Parts: []Part{textPart("3")}})
	if got := describe(local.apply(frame{Type: runtime.EventTextDelta, Seq: 4, Delta: "c"})); got != "artifact:c+append" {
		t.Fatalf("after resume: %q", got)
	}
	subscriber := logged // a follower that saw input-required, not the resume
	if got := describe(subscriber.apply(frame{Type: runtime.EventTextDelta, Seq: 4, Delta: "c"})); got != "status:WORKING artifact:c+append" {
		t.Fatalf("follower after resume: %q", got)
	}
}

func TestMappingEndings(t *testing.T) {
	cases := []struct {
		f     frame
		state string
		text  string
	}{
		{frame{Type: runtime.EventCompleted, Status: runtime.StatusCancelled, ErrorCode: "cancelled"}, stateCanceled, "Task canceled"},
		{frame{Type: runtime.EventCompleted, Status: runtime.StatusDenied}, stateRejected, "Approval denied"},
		{frame{Type: runtime.EventCompleted, Status: runtime.StatusFailed, ErrorCode: runtime.CodeTimedOut}, stateFailed, "Agent timed out"},
		{frame{Type: runtime.EventError, ErrorText: "Agent execution failed"}, stateFailed, "Agent execution failed"},
	}
	for _, c := range cases {
		m := newTestMapper()
		c.f.Seq = 3
		evs := m.apply(c.f)
		if len(evs) != 1 || !evs[0].final() || m.task.Status.State != c.state || *m.task.Status.Message.Parts[0].Text != c.text {
			t.Errorf("%+v: %s %+v", c.f, describe(evs), m.task.Status)
		}
		if evs := m.apply(frame{Type: runtime.EventTextDelta, Seq: 4, Delta: "late"}); evs != nil {
			t.Errorf("a finished task took more: %s", describe(evs))
		}
	}
	// A response failed by the sweeper (no events) ends from its receipt.
	m := newTestMapper()
	receipt, err := runtime.ParseReceipt([]byte(`{"id":"resp_1","sessionId":"s1","status":"failed","outputText":"","output":[],"metadata":{},"error":{"code":"replica_lost"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if evs := m.applyReceipt(receipt); len(evs) != 1 || m.task.Status.State != stateFailed {
		t.Fatalf("receipt ending: %s", describe(evs))
	}
}

// A retraction (another replica runs the turn again) is a working status
// update that says what it withdraws, and the response artifact starts
// over: the snapshot holds the new attempt's text once. Read from the log
// it maps the same.
func TestMappingRetraction(t *testing.T) {
	events := []runtime.Event{
		{Type: runtime.EventCreated},
		{Type: runtime.EventTextDelta, Delta: "half an ans"},
		{Type: runtime.EventRetracted, Retracted: &runtime.Retraction{FromSequence: 1, ToSequence: 1, Text: "half an ans", Attempt: 2}},
		{Type: runtime.EventAgentActivity, Activity: "attempt", Code: "2"},
		{Type: runtime.EventTextDelta, Delta: "the answer"},
	}
	for _, fromLog := range []bool{false, true} {
		m := newTestMapper()
		var got []string
		for i, e := range events {
			e.Sequence = i
			f := frameOf(e)
			if fromLog {
				b, err := json.Marshal(e)
				if err != nil {
					t.Fatal(err)
				}
				f = loggedFrame(runtime.Frame{Type: e.Type, Sequence: i, JSON: b})
			}
			got = append(got, describe(m.apply(f)))
		}
		want := []string{"status:WORKING", "artifact:half an ans", "status:WORKING[retracted]", "status:WORKING[agent_activity]", "artifact:the answer"}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Fatalf("from log %v: %q, want %q", fromLog, got, want)
		}
		if len(m.task.Artifacts) != 1 || *m.task.Artifacts[0].Parts[0].Text != "the answer" {
			t.Fatalf("from log %v: artifact snapshot %+v", fromLog, m.task.Artifacts)
		}
	}
}
