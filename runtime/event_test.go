package runtime

import (
	"encoding/json"
	"testing"
)

func TestEventMarshalJSONGolden(t *testing.T) {
	ids := func(e Event) Event {
		e.ResponseID, e.SessionID = "resp_1", "s1"
		return e
	}
	tests := []struct {
		name  string
		event Event
		want  string
	}{
		{"text delta",
			ids(Event{Type: EventTextDelta, Sequence: 1, Delta: "Hi", Agent: "a"}),
			`{"type":"response.text.delta","sequence":1,"responseId":"resp_1","sessionId":"s1","delta":"Hi","agent":"a"}`},
		{"empty text delta omits delta",
			ids(Event{Type: EventTextDelta, Sequence: 1}),
			`{"type":"response.text.delta","sequence":1,"responseId":"resp_1","sessionId":"s1"}`},
		{"tool call",
			ids(Event{Type: EventToolCall, Sequence: 2, ID: "call_1", Name: "search", Arguments: json.RawMessage(`{"q":"x"}`)}),
			`{"type":"response.tool_call","sequence":2,"responseId":"resp_1","sessionId":"s1","id":"call_1","name":"search","arguments":{"q":"x"}}`},
		{"tool result",
			ids(Event{Type: EventToolResult, Sequence: 3, CallID: "call_1", Name: "search", Output: json.RawMessage(`"ok"`)}),
			`{"type":"response.tool_result","sequence":3,"responseId":"resp_1","sessionId":"s1","name":"search","callId":"call_1","output":"ok"}`},
		{"state delta is an object under delta",
			ids(Event{Type: EventStateDelta, Sequence: 4, StateDelta: map[string]json.RawMessage{"b": json.RawMessage(`[1,2]`), "a": json.RawMessage(`"x"`)}}),
			`{"type":"response.state_delta","sequence":4,"responseId":"resp_1","sessionId":"s1","delta":{"a":"x","b":[1,2]}}`},
		{"state delta wins over a string delta",
			ids(Event{Type: EventStateDelta, Sequence: 4, Delta: "ignored", StateDelta: map[string]json.RawMessage{"k": json.RawMessage(`1`)}}),
			`{"type":"response.state_delta","sequence":4,"responseId":"resp_1","sessionId":"s1","delta":{"k":1}}`},
		{"nil state delta is {}",
			ids(Event{Type: EventStateDelta, Sequence: 4}),
			`{"type":"response.state_delta","sequence":4,"responseId":"resp_1","sessionId":"s1","delta":{}}`},
		{"created echoes metadata",
			ids(Event{Type: EventCreated, Metadata: json.RawMessage(`{"m":1}`)}),
			`{"type":"response.created","sequence":0,"responseId":"resp_1","sessionId":"s1","metadata":{"m":1}}`},
		{"completed: envelope after type, sequence, responseId; no id",
			Event{Type: EventCompleted, Sequence: 5, ResponseID: "ignored", SessionID: "ignored", Envelope: &Envelope{
				ID: "resp_1", SessionID: "s1", EnvelopeBody: EnvelopeBody{Status: StatusCompleted, OutputText: "Hi",
					Output:   []OutputItem{{Type: "message", Role: "assistant", Content: []ContentPart{{Type: "output_text", Text: "Hi"}}}},
					Metadata: json.RawMessage(`{}`),
					Usage:    &Usage{InputTokens: 1, OutputTokens: 2, TotalTokens: 3},
				}}},
			`{"type":"response.completed","sequence":5,"responseId":"resp_1","sessionId":"s1","status":"completed","outputText":"Hi",` +
				`"output":[{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Hi"}]}],` +
				`"metadata":{},"usage":{"inputTokens":1,"outputTokens":2,"totalTokens":3}}`},
		{"completed without usage",
			Event{Type: EventCompleted, Sequence: 1, Envelope: &Envelope{
				ID: "resp_1", SessionID: "s1", EnvelopeBody: EnvelopeBody{Status: StatusCompleted, Output: []OutputItem{}, Metadata: json.RawMessage(`{"k":"v"}`)},
			}},
			`{"type":"response.completed","sequence":1,"responseId":"resp_1","sessionId":"s1","status":"completed","outputText":"","output":[],"metadata":{"k":"v"}}`},
		{"error",
			ids(Event{Type: EventError, Sequence: 6, Error: "Agent execution failed"}),
			`{"type":"error","sequence":6,"responseId":"resp_1","sessionId":"s1","error":"Agent execution failed"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(tt.event)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tt.want {
				t.Errorf("got\n%s\nwant\n%s", b, tt.want)
			}
			// A pointer marshals the same way.
			pb, err := json.Marshal(&tt.event)
			if err != nil || string(pb) != string(b) {
				t.Errorf("pointer: %s, %v", pb, err)
			}
		})
	}
}

func TestEventMarshalJSONInvalidRaw(t *testing.T) {
	_, err := json.Marshal(Event{Type: EventToolCall, Arguments: json.RawMessage(`{not json`)})
	if err == nil {
		t.Fatal("invalid raw arguments encoded without error")
	}
}
