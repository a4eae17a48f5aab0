package runtime

import (
	"encoding/json"
	"reflect"
	"testing"
)

func text(agent, delta string) Event {
	return Event{Type: EventTextDelta, Agent: agent, Delta: delta}
}

func thinking(agent, delta string) Event {
	return Event{Type: EventThinkingDelta, Agent: agent, Delta: delta}
}

func msg(agent, s string) OutputItem {
	return OutputItem{Type: "message", Role: "assistant", Agent: agent,
		Content: []ContentPart{{Type: "output_text", Text: s}}}
}

func think(agent, s string) OutputItem {
	return OutputItem{Type: "thinking", Agent: agent,
		Content: []ContentPart{{Type: "thinking_text", Text: s}}}
}

func TestOutputBuilderFolding(t *testing.T) {
	call := Event{Type: EventToolCall, ID: "c1", Name: "search", Arguments: json.RawMessage(`{"q":"x"}`), Agent: "a"}
	result := Event{Type: EventToolResult, CallID: "c1", Name: "search", Output: json.RawMessage(`"ok"`), Agent: "a"}
	callItem := OutputItem{Type: "tool_call", ID: "c1", Name: "search", Arguments: json.RawMessage(`{"q":"x"}`), Agent: "a"}
	resultItem := OutputItem{Type: "tool_result", CallID: "c1", Name: "search", Output: json.RawMessage(`"ok"`), Agent: "a"}

	tests := []struct {
		name     string
		events   []Event
		want     []OutputItem
		wantText string
	}{
		{"empty", nil, nil, ""},
		{"adjacent deltas of one agent fold",
			[]Event{text("a", "Hel"), text("a", "lo"), text("a", "!")},
			[]OutputItem{msg("a", "Hello!")}, "Hello!"},
		{"unnamed agent folds too",
			[]Event{text("", "a"), text("", "b")},
			[]OutputItem{msg("", "ab")}, "ab"},
		{"another agent starts a new item",
			[]Event{text("a", "x"), text("b", "y"), text("a", "z")},
			[]OutputItem{msg("a", "x"), msg("b", "y"), msg("a", "z")}, "xyz"},
		{"a tool call in between starts a new item",
			[]Event{text("a", "before"), call, result, text("a", "after")},
			[]OutputItem{msg("a", "before"), callItem, resultItem, msg("a", "after")}, "beforeafter"},
		{"thinking folds separately from text",
			[]Event{thinking("a", "hm"), thinking("a", "m"), text("a", "x"), text("a", "y"), thinking("a", "again")},
			[]OutputItem{think("a", "hmm"), msg("a", "xy"), think("a", "again")}, "xy"},
		{"thinking of another agent starts a new item",
			[]Event{thinking("a", "1"), thinking("b", "2")},
			[]OutputItem{think("a", "1"), think("b", "2")}, ""},
		{"other items",
			[]Event{
				{Type: EventAgentActivity, Agent: "a", Activity: "handoff", Target: "b", Code: "c"},
				{Type: EventDecisionResult, Agent: "a", Value: json.RawMessage(`{"ok":true}`)},
				{Type: EventStateDelta, StateDelta: map[string]json.RawMessage{"k": json.RawMessage(`1`)}},
				{Type: EventCreated}, {Type: EventError, Error: "boom"},
			},
			[]OutputItem{
				{Type: "agent_activity", Agent: "a", Activity: "handoff", Target: "b", Code: "c"},
				{Type: "decision_result", Agent: "a", Value: json.RawMessage(`{"ok":true}`)},
			}, ""},
		{"metadata item keeps its fields",
			[]Event{{Type: EventAgentMetadata, Agent: "a", Framework: "fw", Model: "m", Provider: "p",
				FinishReason: "stop", Raw: json.RawMessage(`{"r":1}`)}},
			[]OutputItem{{Type: "agent_metadata", Agent: "a", Framework: "fw", Model: "m", Provider: "p",
				FinishReason: "stop", Raw: json.RawMessage(`{"r":1}`)}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b outputBuilder
			for _, e := range tt.events {
				b.add(e)
			}
			if !reflect.DeepEqual(b.output(), tt.want) {
				t.Errorf("items:\n got %+v\nwant %+v", b.items, tt.want)
			}
			if string(b.text) != tt.wantText {
				t.Errorf("outputText = %q, want %q", b.text, tt.wantText)
			}
		})
	}
}

func TestOutputBuilderUsage(t *testing.T) {
	meta := func(u *Usage) Event { return Event{Type: EventAgentMetadata, Usage: u} }
	tests := []struct {
		name   string
		events []Event
		want   *Usage
	}{
		{"none", nil, nil},
		{"metadata without usage", []Event{meta(nil)}, nil},
		{"zero counts are ignored", []Event{meta(&Usage{}), meta(&Usage{TotalTokens: 9})}, nil},
		{"total defaults to input+output", []Event{meta(&Usage{InputTokens: 3, OutputTokens: 4})},
			&Usage{InputTokens: 3, OutputTokens: 4, TotalTokens: 7}},
		{"explicit total is kept", []Event{meta(&Usage{InputTokens: 3, OutputTokens: 4, TotalTokens: 10})},
			&Usage{InputTokens: 3, OutputTokens: 4, TotalTokens: 10}},
		{"input only counts", []Event{meta(&Usage{InputTokens: 5})},
			&Usage{InputTokens: 5, TotalTokens: 5}},
		{"output only counts", []Event{meta(&Usage{OutputTokens: 2})},
			&Usage{OutputTokens: 2, TotalTokens: 2}},
		{"sums over events, skipping empty ones", []Event{
			meta(&Usage{InputTokens: 1, OutputTokens: 2}),
			meta(&Usage{TotalTokens: 100}),
			meta(nil),
			meta(&Usage{InputTokens: 10, OutputTokens: 20, TotalTokens: 35}),
		}, &Usage{InputTokens: 11, OutputTokens: 22, TotalTokens: 38}},
		{"usage on other event types is ignored", []Event{
			{Type: EventTextDelta, Delta: "x", Usage: &Usage{InputTokens: 1, OutputTokens: 1}},
			{Type: EventToolCall, Usage: &Usage{InputTokens: 1, OutputTokens: 1}},
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b outputBuilder
			for _, e := range tt.events {
				b.add(e)
			}
			if !reflect.DeepEqual(b.usage, tt.want) {
				t.Errorf("usage = %+v, want %+v", b.usage, tt.want)
			}
		})
	}
}

func TestOutputBuilderDoesNotAliasEventUsage(t *testing.T) {
	u := &Usage{InputTokens: 1, OutputTokens: 1}
	var b outputBuilder
	b.add(Event{Type: EventAgentMetadata, Usage: u})
	b.add(Event{Type: EventAgentMetadata, Usage: u})
	if *u != (Usage{InputTokens: 1, OutputTokens: 1}) {
		t.Fatalf("the event's usage was modified: %+v", *u)
	}
	if *b.usage != (Usage{InputTokens: 2, OutputTokens: 2, TotalTokens: 4}) {
		t.Fatalf("usage = %+v", *b.usage)
	}
}

func TestOutputPolicyFilter(t *testing.T) {
	raw := json.RawMessage(`{"vendor":"x"}`)
	tests := []struct {
		name    string
		policy  OutputPolicy
		event   Event
		keep    bool
		wantRaw json.RawMessage
	}{
		{"text kept", OutputPolicy{}, Event{Type: EventTextDelta}, true, nil},
		{"text kept when hiding tools", OutputPolicy{HideToolActivity: true}, Event{Type: EventTextDelta}, true, nil},
		{"tool call shown by default", OutputPolicy{}, Event{Type: EventToolCall}, true, nil},
		{"tool result shown by default", OutputPolicy{}, Event{Type: EventToolResult}, true, nil},
		{"tool call hidden", OutputPolicy{HideToolActivity: true}, Event{Type: EventToolCall}, false, nil},
		{"tool result hidden", OutputPolicy{HideToolActivity: true}, Event{Type: EventToolResult}, false, nil},
		{"activity not a tool", OutputPolicy{HideToolActivity: true}, Event{Type: EventAgentActivity}, true, nil},
		{"thinking dropped by default", OutputPolicy{}, Event{Type: EventThinkingDelta}, false, nil},
		{"thinking kept", OutputPolicy{ShowThinking: true}, Event{Type: EventThinkingDelta}, true, nil},
		{"metadata normalized by default", OutputPolicy{}, Event{Type: EventAgentMetadata, Raw: raw}, true, nil},
		{"metadata normalized", OutputPolicy{AgentMetadata: "normalized"}, Event{Type: EventAgentMetadata, Raw: raw}, true, nil},
		{"metadata unknown mode normalizes", OutputPolicy{AgentMetadata: "bogus"}, Event{Type: EventAgentMetadata, Raw: raw}, true, nil},
		{"metadata raw", OutputPolicy{AgentMetadata: "raw"}, Event{Type: EventAgentMetadata, Raw: raw}, true, raw},
		{"metadata suppressed", OutputPolicy{AgentMetadata: "suppress"}, Event{Type: EventAgentMetadata, Raw: raw}, false, raw},
		{"raw of other types untouched", OutputPolicy{}, Event{Type: EventTextDelta, Raw: raw}, true, raw},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := tt.event
			if got := tt.policy.filter(&e); got != tt.keep {
				t.Fatalf("filter = %v, want %v", got, tt.keep)
			}
			if string(e.Raw) != string(tt.wantRaw) {
				t.Errorf("raw = %s, want %s", e.Raw, tt.wantRaw)
			}
		})
	}
}
