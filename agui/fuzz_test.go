package agui

import (
	"encoding/json"
	"strconv"
	"testing"
)

// FuzzRunAgentInput feeds arbitrary bodies to the RunAgentInput decoder
// the way the handler does: it must never panic, and what it accepts must
// hold the invariants the handler relies on.
func FuzzRunAgentInput(f *testing.F) {
	for _, seed := range []string{
		`{"threadId":"t","runId":"r","messages":[{"id":"u1","role":"user","content":"hi"}],"state":{},"tools":[],"context":[],"forwardedProps":{}}`,
		`{"threadId":"t","runId":"r","protocolVersion":"1.0","messages":[]}`,
		`{}`,
		`{"messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}]}`,
		`{"messages":[{"id":"u1","role":"user","content":"hi"},{"id":"a1","role":"assistant","toolCalls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"id":"t1","role":"tool","toolCallId":"c1","content":"{\"x\":1}"}]}`,
		`{"messages":[{"id":"r1","role":"reasoning","content":"think"},{"id":"x","role":"activity","activityType":"a","content":{}},{"id":"u1","role":"user","content":"hi","name":null}]}`,
		`{"threadId":"t","messages":[{"id":"u1","role":"user","content":"hi"}],"resume":[{"interruptId":"approval_1","status":"resolved","payload":{"approved":true}}]}`,
		`{"resume":[{"interruptId":"a","status":"cancelled"},{"interruptId":"a","status":"cancelled"}]}`,
		`{"state":{"_x":1}}`,
		`{"state":{"a/b~c":{"deep":[1,null]}},"context":[{"description":"d","value":"v"}]}`,
		`{"tools":[{"name":"get_location","description":"d","parameters":{"type":"object"}}]}`,
		`{"tools":[{"name":""}]}`,
		`{"threadId":" ","runId":null,"messages":null,"state":null,"tools":null,"context":null,"resume":null}`,
		`{"messages":[{"role":"user","content":[{"type":"image","source":{"type":"url","value":"u"}}]}]}`,
		`{"messages":[{"role":"tool","content":"x"}]}`,
		"{\"messages\":[{\"role\":\"user\",\"content\":\"\xff\"}]}",
		`{"protocolVersion":1}`,
		`[]`, `null`, `"x"`, `{"messages":[1,2]}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if !json.Valid(body) {
			return
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(body, &obj) != nil || obj == nil {
			return
		}
		n := 0
		newID := func() string { n++; return "gen" + strconv.Itoa(n) }
		in, err := parseRunInput(obj, newID)
		if err != nil {
			if _, ok := err.(inputError); !ok || err.Error() == "" {
				t.Fatalf("error %T %q", err, err)
			}
			return
		}
		if in.RunID == "" || in.State == nil {
			t.Fatalf("accepted input without a run id or state: %+v", in)
		}
		for k := range in.State {
			if reservedKey(k) {
				t.Fatalf("reserved key %q accepted", k)
			}
		}
		if (in.Input == "") != (in.UserKey == "") {
			t.Fatalf("input %q with user key %q", in.Input, in.UserKey)
		}
		for _, m := range in.Messages {
			var msg map[string]json.RawMessage
			if json.Unmarshal(m, &msg) != nil {
				t.Fatalf("message is not an object: %s", m)
			}
			var id string
			if json.Unmarshal(msg["id"], &id) != nil || id == "" {
				t.Fatalf("message without an id: %s", m)
			}
			for k, v := range msg {
				if string(v) == "null" {
					t.Fatalf("message keeps a null %s: %s", k, m)
				}
			}
		}
		for _, raw := range []json.RawMessage{in.Tools, in.Context, in.ForwardedProps} {
			if raw != nil && !json.Valid(raw) {
				t.Fatalf("invalid JSON kept: %s", raw)
			}
		}
		seen := map[string]bool{}
		for _, e := range in.Resume {
			if e.InterruptID == "" || seen[e.InterruptID] || (e.Payload != nil && !json.Valid(e.Payload)) {
				t.Fatalf("resume %+v", in.Resume)
			}
			seen[e.InterruptID] = true
		}
		for _, a := range in.ToolAnswers {
			if !json.Valid(a.Output) {
				t.Fatalf("tool answer %s", a.Output)
			}
		}
		if in.LastRole == "tool" && len(in.ToolAnswers) == 0 {
			t.Fatalf("a trailing tool message without an answer")
		}
		// Decoding is deterministic.
		n = 0
		again, err := parseRunInput(obj, newID)
		if err != nil || again.Input != in.Input || again.UserKey != in.UserKey || len(again.Messages) != len(in.Messages) {
			t.Fatalf("second decoding differs: %v", err)
		}
	})
}
