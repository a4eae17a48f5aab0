package runtime

import (
	"context"
	"encoding/json"
	"testing"
)

// A model agent reads its earlier tool calls and results from the
// transcript: the answer's message keeps them in metadata.tools, and the
// next turn's History returns them.
func TestTranscriptKeepsToolActivity(t *testing.T) {
	first := true
	var seen []Message
	agent := AgentFunc(func(ctx context.Context, turn *Turn, emit Emit) error {
		if first {
			first = false
			if err := emit(Event{Type: EventToolCall, ID: "call_1", Name: "lookup", Arguments: json.RawMessage(`{"word":"x"}`)}); err != nil {
				return err
			}
			if err := emit(Event{Type: EventToolResult, CallID: "call_1", Name: "lookup", Output: json.RawMessage(`"found"`)}); err != nil {
				return err
			}
			return emit(Event{Type: EventTextDelta, Delta: "It is found."})
		}
		var err error
		seen, err = turn.History(ctx, 10)
		if err != nil {
			return err
		}
		return emit(Event{Type: EventTextDelta, Delta: "ok"})
	})
	s := newTestService(t, agent, nil)
	r, err := s.StartResponse(context.Background(), testUser, ResponseRequest{Input: "look up x"})
	if err != nil {
		t.Fatal(err)
	}
	if out := waitDone(t, r); out.Err != nil {
		t.Fatal(out.Err)
	}
	r2, err := s.StartResponse(context.Background(), testUser, ResponseRequest{Input: "again", SessionID: r.SessionID})
	if err != nil {
		t.Fatal(err)
	}
	if out := waitDone(t, r2); out.Err != nil {
		t.Fatal(out.Err)
	}
	if len(seen) != 2 || seen[0].Role != "user" || seen[1].Role != "assistant" {
		t.Fatalf("history = %+v", seen)
	}
	var meta struct {
		ResponseID string       `json:"responseId"`
		Tools      []OutputItem `json:"tools"`
	}
	if err := json.Unmarshal(seen[1].Metadata, &meta); err != nil {
		t.Fatal(err)
	}
	if meta.ResponseID != r.ID || len(meta.Tools) != 2 {
		t.Fatalf("metadata = %s", seen[1].Metadata)
	}
	call, result := meta.Tools[0], meta.Tools[1]
	if call.Type != "tool_call" || call.ID != "call_1" || call.Name != "lookup" || string(call.Arguments) != `{"word":"x"}` {
		t.Errorf("call = %+v", call)
	}
	if result.Type != "tool_result" || result.CallID != "call_1" || string(result.Output) != `"found"` {
		t.Errorf("result = %+v", result)
	}
	var userMeta map[string]any
	if err := json.Unmarshal(seen[0].Metadata, &userMeta); err != nil || userMeta["tools"] != nil {
		t.Errorf("the user message has tools: %s", seen[0].Metadata)
	}
}
