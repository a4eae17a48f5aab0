package uichat

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/harnest/harnest/runtime"
)

// encode runs events through a live encoder and returns the chunks' types
// and the chunks.
func encode(t *testing.T, events []runtime.Event, envs map[int]*runtime.EnvelopeBody) ([]string, []map[string]any) {
	t.Helper()
	var chunks []map[string]any
	enc := newEncoder("resp_1", func(b []byte) error {
		var c map[string]any
		if err := json.Unmarshal(b, &c); err != nil {
			t.Fatalf("chunk %s: %v", b, err)
		}
		chunks = append(chunks, c)
		return nil
	})
	if err := enc.start(); err != nil {
		t.Fatal(err)
	}
	for i, e := range events {
		e.Sequence = i
		done, err := enc.event(e, envs[i])
		if err != nil {
			t.Fatal(err)
		}
		if done {
			break
		}
	}
	if err := enc.finish("s1"); err != nil {
		t.Fatal(err)
	}
	types := make([]string, len(chunks))
	for i, c := range chunks {
		types[i] = c["type"].(string)
	}
	return types, chunks
}

func TestEncoderEndings(t *testing.T) {
	delta := runtime.Event{Type: runtime.EventTextDelta, Delta: "hi"}
	cases := []struct {
		name   string
		events []runtime.Event
		envs   map[int]*runtime.EnvelopeBody
		want   []string
		reason any
	}{
		{"an error event", []runtime.Event{delta, {Type: runtime.EventError, Error: "Agent execution failed"}}, nil,
			[]string{"start", "start-step", "text-start", "text-delta", "text-end", "error", "finish-step", "finish"}, "error"},
		{"failed receipt", []runtime.Event{delta, {Type: runtime.EventCompleted}}, map[int]*runtime.EnvelopeBody{1: {Status: runtime.StatusFailed, Error: &runtime.EnvelopeError{Code: "timed_out"}}},
			[]string{"start", "start-step", "text-start", "text-delta", "text-end", "error", "finish-step", "finish"}, "error"},
		{"cancelled", []runtime.Event{delta, {Type: runtime.EventCompleted}}, map[int]*runtime.EnvelopeBody{1: {Status: runtime.StatusCancelled}},
			[]string{"start", "start-step", "text-start", "text-delta", "text-end", "abort", "finish-step", "finish"}, nil},
		{"no boundary", []runtime.Event{delta}, nil,
			[]string{"start", "start-step", "text-start", "text-delta", "text-end", "error", "finish-step", "finish"}, "error"},
		{"a retraction withdraws the step", []runtime.Event{delta, {Type: runtime.EventRetracted, Retracted: &runtime.Retraction{Attempt: 2}}, delta, {Type: runtime.EventCompleted}}, nil,
			[]string{"start", "start-step", "text-start", "text-delta", "text-end", "reset-step", "start-step", "text-start", "text-delta", "text-end", "finish-step", "finish"}, "stop"},
		{"state and decision", []runtime.Event{{Type: runtime.EventStateDelta, StateDelta: map[string]json.RawMessage{"k": json.RawMessage(`1`)}}, {Type: runtime.EventDecisionResult, Value: json.RawMessage(`{"ok":true}`)}, {Type: runtime.EventCompleted}}, nil,
			[]string{"start", "start-step", "data-state", "data-decision", "finish-step", "finish"}, "stop"},
		{"a steer", []runtime.Event{delta, {Type: runtime.EventSteered, Steered: &runtime.SteerInfo{ID: "steer_1", Input: "shorter"}}, delta, {Type: runtime.EventCompleted}}, nil,
			[]string{"start", "start-step", "text-start", "text-delta", "text-end", "steering-message", "text-start", "text-delta", "text-end", "finish-step", "finish"}, "stop"},
		{"a tool result without its call", []runtime.Event{{Type: runtime.EventToolResult, CallID: "c1", Name: "search", Output: json.RawMessage(`"found"`)}, {Type: runtime.EventCompleted}}, nil,
			[]string{"start", "start-step", "tool-input-start", "tool-input-available", "tool-output-available", "finish-step", "finish"}, "stop"},
	}
	for _, c := range cases {
		got, chunks := encode(t, c.events, c.envs)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
			continue
		}
		if fin := chunks[len(chunks)-1]; fin["finishReason"] != c.reason {
			t.Errorf("%s: finish %v", c.name, fin)
		}
	}
}
