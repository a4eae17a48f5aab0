package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
)

// TestDecodeEventRoundTrip: every kind of event the runtime writes reads
// back as the same typed event, whose JSON is the bytes it was read from.
func TestDecodeEventRoundTrip(t *testing.T) {
	ids := func(e Event) Event {
		e.ResponseID, e.SessionID = "resp_1", "s1"
		return e
	}
	env := &Envelope{ID: "resp_1", SessionID: "s1", EnvelopeBody: EnvelopeBody{
		Status: StatusRequiresAction, OutputText: "Hi",
		Output: []OutputItem{{Type: "message", Role: "assistant", Content: []ContentPart{{Type: "output_text", Text: "Hi"}}},
			{Type: "agent_activity", Activity: ActivityTask},
			{Type: OutputArtifact, ArtifactID: "a1", Name: "doc", Parts: []ArtifactPart{{Type: "text", Text: "x"}}}},
		Metadata: json.RawMessage(`{"m":1}`), Usage: &Usage{InputTokens: 1, OutputTokens: 2, TotalTokens: 3},
		Result: json.RawMessage(`{"r":true}`), Error: &EnvelopeError{Code: CodeReplicaLost, Attempts: 3},
		RequiredAction: &RequiredAction{Type: "human_approval", ID: "ap_1", CallID: "c1", Action: "delete", Message: "Sure?",
			Arguments: json.RawMessage(`{"id":7}`), ExpiresAt: "2026-01-01T00:00:00Z"},
		ApprovalID: "ap_0", ClientToolID: "ct_0",
	}}
	events := []Event{
		ids(Event{Type: EventCreated, Metadata: json.RawMessage(`{"m":1}`)}),
		ids(Event{Type: EventTextDelta, Sequence: 1, Delta: "Hi \"there\"", Agent: "a"}),
		ids(Event{Type: EventThinkingDelta, Sequence: 2, Delta: "hmm"}),
		ids(Event{Type: EventAgentActivity, Sequence: 3, Agent: "a", Activity: "handoff", Target: "b", Code: "c"}),
		ids(Event{Type: EventAgentMetadata, Sequence: 4, Framework: "f", Model: "m", Provider: "p", FinishReason: "stop",
			Usage: &Usage{InputTokens: 1, OutputTokens: 2, TotalTokens: 3}, Raw: json.RawMessage(`{"x":1}`)}),
		ids(Event{Type: EventDecisionResult, Sequence: 5, Value: json.RawMessage(`[1,2]`)}),
		ids(Event{Type: EventToolCall, Sequence: 6, ID: "call_1", Name: "search", Arguments: json.RawMessage(`{"q":"x"}`)}),
		ids(Event{Type: EventToolResult, Sequence: 7, CallID: "call_1", Name: "search", Output: json.RawMessage(`"ok"`)}),
		ids(Event{Type: EventStateDelta, Sequence: 8, StateDelta: map[string]json.RawMessage{"a": json.RawMessage(`"x"`), "b": json.RawMessage(`[1,2]`)}}),
		ids(Event{Type: EventStateDelta, Sequence: 9, StateDelta: map[string]json.RawMessage{}}),
		ids(Event{Type: EventArtifact, Sequence: 10, Artifact: &ArtifactInfo{ID: "a1", Name: "doc", Parts: []ArtifactPart{{Type: "text", Text: "x"}},
			Append: true, LastChunk: true, Metadata: json.RawMessage(`{"k":1}`)}}),
		ids(Event{Type: EventRetracted, Sequence: 11, Retracted: &Retraction{FromSequence: 1, ToSequence: 10, Text: "Hi", Attempt: 2}}),
		ids(Event{Type: EventApproval, Sequence: 12, Approval: &ApprovalInfo{ID: "ap_1", CallID: "c1", Action: "delete", Message: "Sure?",
			Arguments: json.RawMessage(`{"id":7}`), ExpiresAt: "2026-01-01T00:00:00Z"}}),
		ids(Event{Type: EventClientTool, Sequence: 13, ClientTool: &ClientToolInfo{ID: "ct_1", CallID: "c2", Name: "pick",
			Arguments: json.RawMessage(`{}`), ExpiresAt: "2026-01-01T00:00:00Z"}}),
		{Type: EventCompleted, Sequence: 14, ResponseID: "resp_1", SessionID: "s1", Envelope: env},
		ids(Event{Type: EventError, Sequence: 15, Error: "Agent execution failed"}),
	}
	for _, want := range events {
		t.Run(want.Type, func(t *testing.T) {
			b, err := want.encode()
			if err != nil {
				t.Fatal(err)
			}
			got, err := Frame{Sequence: want.Sequence, Type: want.Type, JSON: b}.Event()
			if err != nil {
				t.Fatalf("decode %s: %v", b, err)
			}
			if j, _ := got.JSON(); string(j) != string(b) {
				t.Errorf("JSON() is not the bytes read: %s", j)
			}
			if again, _ := got.encode(); string(again) != string(b) {
				t.Errorf("re-encoded\n%s\nwant\n%s", again, b)
			}
			got.encoded = nil
			if !reflect.DeepEqual(got, want) {
				t.Errorf("decoded\n%+v\nwant\n%+v", got, want)
			}
		})
	}
}

// TestDecodeEventRefusesWhatIsNoEvent: bytes that are no event give an
// error; a Frame then still says its type and sequence.
func TestDecodeEventRefusesWhatIsNoEvent(t *testing.T) {
	for _, b := range []string{``, `[]`, `{}`, `{"type":"response.completed","status":1}`, `{"type":"response.text.delta","delta":{}}`} {
		if _, err := DecodeEvent([]byte(b)); err == nil {
			t.Errorf("DecodeEvent(%s) = nil error", b)
		}
	}
	e, err := Frame{Sequence: 3, Type: EventTextDelta, JSON: []byte(`{`)}.Event()
	if err == nil || e.Type != EventTextDelta || e.Sequence != 3 {
		t.Errorf("Frame.Event of bad JSON = %+v, %v", e, err)
	}
}

// TestParseReceipt reads a receipt as its envelope.
func TestParseReceipt(t *testing.T) {
	env := Envelope{ID: "resp_1", SessionID: "s1", EnvelopeBody: EnvelopeBody{Status: StatusFailed, Output: []OutputItem{},
		Metadata: json.RawMessage(`{}`), Error: &EnvelopeError{Code: CodeTimedOut}}}
	b, err := env.encode()
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseReceipt(b)
	if err != nil || !reflect.DeepEqual(got, env) {
		t.Errorf("ParseReceipt = %+v, %v; want %+v", got, err, env)
	}
	if _, err := ParseReceipt([]byte(`nope`)); err == nil {
		t.Error("ParseReceipt of bad JSON = nil error")
	}
	env.Status, env.Error, env.ApprovalID, env.ClientToolID = StatusRequiresAction, nil, "ap_0", "ct_0"
	env.Output = []OutputItem{{Type: "message", Role: "assistant", Content: []ContentPart{{Type: "output_text", Text: "x"}}}}
	env.RequiredAction = &RequiredAction{Type: "client_tool", ID: "ct_1", CallID: "c", Name: "pick", Arguments: json.RawMessage(`{}`), ExpiresAt: "e"}
	b, _ = env.encode()
	st, err := ParseReceiptState(b)
	want := ReceiptState{ID: "resp_1", SessionID: "s1", Status: StatusRequiresAction, RequiredAction: env.RequiredAction, ApprovalID: "ap_0", ClientToolID: "ct_0"}
	if err != nil || !reflect.DeepEqual(st, want) {
		t.Errorf("ParseReceiptState = %+v, %v; want %+v", st, err, want)
	}
	if _, err := ParseReceiptState([]byte(`[]`)); err == nil {
		t.Error("ParseReceiptState of an array = nil error")
	}
}

// TestOutcomeKeepsTheFirstSegmentsEvents: a response asked to keep its
// events hands the first segment's with the outcome, typed and in order,
// the same as its log holds (more of them than the room made at first);
// one not asked keeps none.
func TestOutcomeKeepsTheFirstSegmentsEvents(t *testing.T) {
	agent := AgentFunc(func(ctx context.Context, turn *Turn, emit Emit) error {
		for i := range keptRoom + 2 {
			if err := emit(Event{Type: EventTextDelta, Delta: fmt.Sprint(i)}); err != nil {
				return err
			}
		}
		return emit(Event{Type: EventStateDelta, StateDelta: map[string]json.RawMessage{"k": json.RawMessage(`1`)}})
	})
	s := newTestService(t, agent, nil)
	for _, keep := range []bool{true, false} {
		r, err := s.StartResponse(context.Background(), testUser, ResponseRequest{Input: "hi", KeepEvents: keep})
		if err != nil {
			t.Fatal(err)
		}
		out := waitDone(t, r)
		if !keep {
			if out.Events != nil {
				t.Fatalf("not asked, kept %d events", len(out.Events))
			}
			continue
		}
		frames, held, err := s.LoggedEvents(context.Background(), testUser, r.SessionID, r.ID, -1, 0)
		if err != nil || !held {
			t.Fatalf("log: %v %v", held, err)
		}
		if len(out.Events) != len(frames) || len(frames) != keptRoom+5 {
			t.Fatalf("kept %d events, the log holds %d", len(out.Events), len(frames))
		}
		for i, e := range out.Events {
			b, err := e.JSON()
			logged, _ := frames[i].Event()
			if err != nil || string(b) != string(frames[i].JSON) || e.Sequence != i || e.Type != logged.Type {
				t.Fatalf("event %d: kept %s, logged %s", i, b, frames[i].JSON)
			}
		}
		last := out.Events[len(out.Events)-1]
		if env, ok := out.Receipt(); !ok || last.Envelope == nil || last.Envelope.OutputText != env.OutputText || env.Status != StatusCompleted {
			t.Fatalf("last kept event %+v, receipt %+v %v", last, env, ok)
		}
	}
}
