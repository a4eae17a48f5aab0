package eval

import (
	"encoding/json"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// tools reads a trajectory as a cases file writes it.
func tools(t *testing.T, src string) *Tools {
	t.Helper()
	var tt Tools
	if err := yaml.Unmarshal([]byte(src), &tt); err != nil {
		t.Fatal(err)
	}
	probs := &Problems{}
	tt.check("tools", probs)
	if len(probs.Lines) > 0 {
		t.Fatal(probs)
	}
	return &tt
}

func calls(pairs ...string) []ToolCall {
	var out []ToolCall
	for i := 0; i < len(pairs); i += 2 {
		out = append(out, ToolCall{Name: pairs[i], Arguments: json.RawMessage(pairs[i+1])})
	}
	return out
}

func TestTrajectoryModes(t *testing.T) {
	made := calls("search", `{"q":"Lisbon hotels","n":3}`, "log", `{}`, "book", `{"hotel":{"name":"Avenida","stars":4},"nights":2}`)
	tests := []struct {
		name, spec string
		got        []ToolCall
		pass       bool
		why        string
	}{
		{"exact, same calls", "calls: [{name: search}, {name: log}, {name: book}]", made, true, ""},
		{"exact, a call missing", "calls: [{name: search}, {name: book}]", made, false, "call 2: log is not book"},
		{"exact, one more call", "calls: [{name: search}, {name: log}]", made, false, "1 calls more than the 2 expected"},
		{"exact, none expected, none made", "calls: []", nil, true, ""},
		{"exact, none expected, one made", "calls: []", made[:1], false, "1 calls more"},
		{"exact, too few made", "calls: [{name: search}, {name: log}, {name: book}, {name: pay}]", made, false, "call 4 (pay) was not made"},
		{"inOrder, a gap allowed", "match: inOrder\ncalls: [{name: search}, {name: book}]", made, true, ""},
		{"inOrder, wrong order", "match: inOrder\ncalls: [{name: book}, {name: search}]", made, false, "expected call 2 (search) was not made after"},
		{"anyOrder, reversed", "match: anyOrder\ncalls: [{name: book}, {name: search}]", made, true, ""},
		{"anyOrder, twice but made once", "match: anyOrder\ncalls: [{name: search}, {name: search}]", made, false, "expected call 2 (search) was not made (or not once more)"},
		{"anyOrder, a later spec takes a call an earlier could leave",
			"match: anyOrder\ncalls: [{name: s}, {name: s, args: {a: 1}}]",
			calls("s", `{"a":1}`, "s", `{"a":2}`), true, ""},
		{"args equals (numbers as JSON)", "calls: [{name: search, args: {n: 3.0, q: Lisbon hotels}}, {name: log}, {name: book}]", made, true, ""},
		{"args equals differs", "match: inOrder\ncalls: [{name: search, args: {n: 4}}]", made, false, "argument n = 3, want 4"},
		{"args contains", "match: anyOrder\ncalls: [{name: search, args: {q: {contains: Lisbon}}}]", made, true, ""},
		{"args contains differs", "match: anyOrder\ncalls: [{name: search, args: {q: {contains: Porto}}}]", made, false, `does not contain "Porto"`},
		{"args regex", "match: anyOrder\ncalls: [{name: book, args: {nights: {regex: '^[1-3]$'}}}]", made, true, ""},
		{"args object equals", "match: anyOrder\ncalls: [{name: book, args: {hotel: {stars: 4, name: Avenida}}}]", made, true, ""},
		{"args JSON pointer", "match: anyOrder\ncalls: [{name: book, args: {/hotel/name: {equals: Avenida}}}]", made, true, ""},
		{"args missing", "match: anyOrder\ncalls: [{name: book, args: {/hotel/floor: 2}}]", made, false, "argument /hotel/floor is missing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := checkTrajectory(tools(t, tt.spec), tt.got)
			if c.Passed != tt.pass || !strings.Contains(c.Detail, tt.why) {
				t.Fatalf("passed %v (%s), want %v with %q", c.Passed, c.Detail, tt.pass, tt.why)
			}
		})
	}
}

func TestParseVerdict(t *testing.T) {
	tests := []struct {
		text  string
		score float64
		err   string
	}{
		{`{"score": 0.8, "reason": "good"}`, 0.8, ""},
		{"<think>hmm {no}</think>\n```json\n{\"score\": 1, \"reason\": \"ok\"}\n```", 1, ""},
		{`The verdict: {"score": 0, "reason": "wrong city"}. Done.`, 0, ""},
		{`no object`, 0, "holds no JSON object"},
		{`{"reason": "x"}`, 0, "has no score"},
		{`{"score": 7}`, 0, "not between 0 and 1"},
		{`{"score": "high"}`, 0, "does not read"},
	}
	for _, tt := range tests {
		score, _, err := parseVerdict(tt.text)
		if tt.err == "" && (err != nil || score != tt.score) {
			t.Errorf("%q: %v, %v; want %v", tt.text, score, err, tt.score)
		}
		if tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("%q: error %v, want %q", tt.text, err, tt.err)
		}
	}
}
