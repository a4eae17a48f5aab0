package backend

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/harnest/harnest/runtime"
)

func TestDecodeWorkerLineAccepts(t *testing.T) {
	cases := []struct {
		line string
		want runtime.Event // the event it maps to; zero for non-output lines
	}{
		{`{"type":"text","id":"r","delta":"hé"}`, runtime.Event{Type: runtime.EventTextDelta, Delta: "hé"}},
		{`{"type":"text","id":"r","delta":"","agent":"writer","future":[1,2]}`, runtime.Event{Type: runtime.EventTextDelta, Agent: "writer"}},
		{`{"type":"thinking","id":"r","delta":"hmm"}`, runtime.Event{Type: runtime.EventThinkingDelta, Delta: "hmm"}},
		{`{"type":"tool_call","id":"r","callId":"c1","name":"lookup","arguments":{"q":1}}`,
			runtime.Event{Type: runtime.EventToolCall, ID: "c1", Name: "lookup", Arguments: json.RawMessage(`{"q":1}`)}},
		{`{"type":"tool_call","id":"r","callId":"c1","name":"lookup"}`,
			runtime.Event{Type: runtime.EventToolCall, ID: "c1", Name: "lookup", Arguments: json.RawMessage(`{}`)}},
		{`{"type":"tool_result","id":"r","callId":"c1","name":"lookup","output":[1,"a"]}`,
			runtime.Event{Type: runtime.EventToolResult, CallID: "c1", Name: "lookup", Output: json.RawMessage(`[1,"a"]`)}},
		{`{"type":"tool_result","id":"r","callId":"c1","name":"lookup"}`,
			runtime.Event{Type: runtime.EventToolResult, CallID: "c1", Name: "lookup", Output: json.RawMessage(`null`)}},
		{`{"type":"activity","id":"r","activity":"searching","target":"web","code":"s1","agent":"a"}`,
			runtime.Event{Type: runtime.EventAgentActivity, Activity: "searching", Target: "web", Code: "s1", Agent: "a"}},
		{`{"type":"metadata","id":"r","framework":"f","model":"m","provider":"p","finishReason":"stop","usage":{"inputTokens":3,"outputTokens":4}}`,
			runtime.Event{Type: runtime.EventAgentMetadata, Framework: "f", Model: "m", Provider: "p", FinishReason: "stop",
				Usage: &runtime.Usage{InputTokens: 3, OutputTokens: 4, TotalTokens: 7}}},
		{`{"type":"metadata","id":"r","framework":"f","model":"m","usage":{"inputTokens":3,"costMicros":1500}}`,
			runtime.Event{Type: runtime.EventAgentMetadata, Framework: "f", Model: "m",
				Usage: &runtime.Usage{InputTokens: 3, TotalTokens: 3, CostMicros: 1500}}},
		{`{"type":"metadata","id":"r","framework":"f","usage":null,"raw":{"x":1}}`,
			runtime.Event{Type: runtime.EventAgentMetadata, Framework: "f", Raw: json.RawMessage(`{"x":1}`)}},
		{`{"type":"state","id":"r","delta":{"turns":2,"k":{"a":null}}}`,
			runtime.Event{Type: runtime.EventStateDelta, StateDelta: map[string]json.RawMessage{
				"turns": json.RawMessage("2"), "k": json.RawMessage(`{"a":null}`)}}},
		{`{"type":"result","id":"r","value":null}`, runtime.Event{}},
		{`{"type":"approval_request","id":"r","requestId":"q","action":"send","message":"Send?","arguments":{"to":"x"}}`, runtime.Event{}},
		{`{"type":"client_tool_request","id":"r","requestId":"q","name":"loc"}`, runtime.Event{}},
		{`{"type":"error","id":"r","message":"boom"}`, runtime.Event{}},
		{`{"type":"error","id":"r"}`, runtime.Event{}},
		{"  {\"type\":\"done\",\"id\":\"r\"}\r", runtime.Event{}},
	}
	for _, c := range cases {
		m, err := decodeWorkerLine([]byte(c.line))
		if err != nil {
			t.Errorf("decodeWorkerLine(%s): %v", c.line, err)
			continue
		}
		if m.ID != "r" {
			t.Errorf("decodeWorkerLine(%s): id %q", c.line, m.ID)
		}
		got, ok := m.event()
		if ok != (c.want.Type != "") {
			t.Errorf("decodeWorkerLine(%s): event() ok = %v", c.line, ok)
			continue
		}
		gotJSON, _ := got.JSON()
		wantJSON, _ := c.want.JSON()
		if ok && string(gotJSON) != string(wantJSON) {
			t.Errorf("decodeWorkerLine(%s) maps to\n%s\nwant\n%s", c.line, gotJSON, wantJSON)
		}
	}

	m, err := decodeWorkerLine([]byte(`{"type":"approval_request","id":"r","requestId":"q","action":"send"}`))
	if err != nil || m.RequestID != "q" || m.Action != "send" || string(m.Arguments) != "{}" {
		t.Errorf("approval_request decodes to %+v, %v", m, err)
	}
	m, err = decodeWorkerLine([]byte(`{"type":"client_tool_request","id":"r","requestId":"q","name":"loc","callId":"c","arguments":{"a":1}}`))
	if err != nil || m.RequestID != "q" || m.Name != "loc" || m.CallID != "c" || string(m.Arguments) != `{"a":1}` {
		t.Errorf("client_tool_request decodes to %+v, %v", m, err)
	}
}

func TestDecodeWorkerLineRejects(t *testing.T) {
	cases := []struct{ line, want string }{
		{``, "empty line"},
		{`   `, "empty line"},
		{`[1]`, "not a JSON object"},
		{`"text"`, "not a JSON object"},
		{`{"type":"text","id":"r","delta":"x"`, "not valid JSON"},
		{`{"type":"text","id":"r","delta":"x"} trailing`, "not valid JSON"},
		{`{"type":"text","id":"r","delta":"x"}{}`, "not valid JSON"},
		{`{"id":"r"}`, `field "type" is missing`},
		{`{"type":7,"id":"r"}`, `field "type" must be a string`},
		{`{"type":"text","delta":"x"}`, `field "id" is missing`},
		{`{"type":"text","id":"","delta":"x"}`, `field "id" is empty`},
		{`{"type":"text","id":null,"delta":"x"}`, `field "id" is missing`},
		{`{"type":"text","id":5,"delta":"x"}`, `field "id" must be a string`},
		{`{"Type":"text","id":"r","delta":"x"}`, `field "type" is missing`},
		{`{"type":"bogus","id":"r"}`, `unknown type "bogus"`},
		{`{"type":"turn","id":"r"}`, `unknown type "turn"`},
		{`{"type":"` + strings.Repeat("a", 100) + `","id":"r"}`, `unknown type "aaaa`},
		{`{"type":"text","id":"r"}`, `text: field "delta" is missing`},
		{`{"type":"text","id":"r","delta":5}`, `text: field "delta" must be a string`},
		{`{"type":"thinking","id":"r","delta":{}}`, `thinking: field "delta" must be a string`},
		{`{"type":"text","id":"r","delta":"x","agent":1}`, `text: field "agent" must be a string`},
		{`{"type":"tool_call","id":"r","name":"n"}`, `tool_call: field "callId" is missing`},
		{`{"type":"tool_call","id":"r","callId":"c"}`, `tool_call: field "name" is missing`},
		{`{"type":"tool_call","id":"r","callId":"c","name":"n","arguments":[1]}`, `tool_call: field "arguments" must be an object`},
		{`{"type":"tool_call","id":"r","callId":"c","name":"n","arguments":"{}"}`, `tool_call: field "arguments" must be an object`},
		{`{"type":"tool_result","id":"r","callId":"c"}`, `tool_result: field "name" is missing`},
		{`{"type":"activity","id":"r"}`, `activity: field "activity" is missing`},
		{`{"type":"activity","id":"r","activity":"a","target":false}`, `activity: field "target" must be a string`},
		{`{"type":"metadata","id":"r"}`, `metadata: field "framework" is missing`},
		{`{"type":"metadata","id":"r","framework":"f","usage":[]}`, `metadata: field "usage" must be an object`},
		{`{"type":"metadata","id":"r","framework":"f","usage":{"inputTokens":"3"}}`, `inputTokens must be a non-negative integer`},
		{`{"type":"metadata","id":"r","framework":"f","usage":{"outputTokens":-1}}`, `outputTokens must be a non-negative integer`},
		{`{"type":"metadata","id":"r","framework":"f","usage":{"totalTokens":1.5}}`, `totalTokens must be a non-negative integer`},
		{`{"type":"metadata","id":"r","framework":"f","usage":{"costMicros":-5}}`, `costMicros must be a non-negative integer`},
		{`{"type":"metadata","id":"r","framework":"f","raw":"x"}`, `metadata: field "raw" must be an object`},
		{`{"type":"state","id":"r"}`, `state: field "delta" is missing`},
		{`{"type":"state","id":"r","delta":"x"}`, `state: field "delta" must be an object`},
		{`{"type":"result","id":"r"}`, `result: field "value" is missing`},
		{`{"type":"approval_request","id":"r","action":"a"}`, `approval_request: field "requestId" is missing`},
		{`{"type":"approval_request","id":"r","requestId":"q"}`, `approval_request: field "action" is missing`},
		{`{"type":"approval_request","id":"r","requestId":"q","action":"a","message":1}`, `approval_request: field "message" must be a string`},
		{`{"type":"client_tool_request","id":"r","requestId":"q"}`, `client_tool_request: field "name" is missing`},
		{`{"type":"client_tool_request","id":"r","requestId":"q","name":"n","callId":2}`, `client_tool_request: field "callId" must be a string`},
		{`{"type":"error","id":"r","message":["x"]}`, `error: field "message" must be a string`},
	}
	for _, c := range cases {
		_, err := decodeWorkerLine([]byte(c.line))
		if err == nil {
			t.Errorf("decodeWorkerLine(%s) succeeded, want %q", c.line, c.want)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("decodeWorkerLine(%s): %q, want it to contain %q", c.line, err, c.want)
		}
		if len(err.Error()) > 300 {
			t.Errorf("decodeWorkerLine(%s): error of %d bytes", c.line, len(err.Error()))
		}
	}
}

func TestServerLinesAreSingleLines(t *testing.T) {
	for _, v := range []any{
		turnLine{Type: "turn", ID: "r", Input: "a\nb\u2028c\rd", Content: []workerContent{{ContentInput: runtime.ContentInput{Type: "text", Text: "a\nb"}}}},
		approvalLine{Type: "approval", ID: "r", RequestID: "q", Decision: "deny"},
		clientToolLine{Type: "client_tool", ID: "r", RequestID: "q", Output: json.RawMessage("{\n\"a\": 1\n}")},
		clientToolLine{Type: "client_tool", ID: "r", RequestID: "q", Error: "client tool did not return"},
		cancelLine{Type: "cancel", ID: "r"},
	} {
		line, err := encodeLine(v)
		if err != nil {
			t.Fatalf("encodeLine(%+v): %v", v, err)
		}
		if strings.Count(string(line), "\n") != 1 || line[len(line)-1] != '\n' {
			t.Errorf("encodeLine(%+v) = %q, want one line", v, line)
		}
	}
}

// FuzzWorkerLine checks that no line makes the decoder panic, and that what
// it accepts is well formed: a known type, an id, and for output lines an
// event whose JSON encodes.
func FuzzWorkerLine(f *testing.F) {
	for _, seed := range []string{
		`{"type":"text","id":"r","delta":"hé"}`,
		`{"type":"thinking","id":"r","delta":"x","agent":"a"}`,
		`{"type":"tool_call","id":"r","callId":"c","name":"n","arguments":{"q":[1,{"b":null}]}}`,
		`{"type":"tool_result","id":"r","callId":"c","name":"n","output":"x"}`,
		`{"type":"activity","id":"r","activity":"a","target":"t","code":"c"}`,
		`{"type":"metadata","id":"r","framework":"f","usage":{"inputTokens":1,"outputTokens":2,"totalTokens":3},"raw":{}}`,
		`{"type":"state","id":"r","delta":{"k":1}}`,
		`{"type":"artifact","id":"r","artifactId":"a","append":true,"parts":[{"type":"data","data":[1]},{"type":"file","bytes":"YQ==","name":"n"}]}`,
		`{"type":"result","id":"r","value":{"a":1}}`,
		`{"type":"approval_request","id":"r","requestId":"q","action":"a","message":"m","arguments":{}}`,
		`{"type":"client_tool_request","id":"r","requestId":"q","name":"n","arguments":{},"callId":"c"}`,
		`{"type":"error","id":"r","message":"m"}`,
		`{"type":"done","id":"r"}`,
		`{"type":"done","id":"r","id":5}`,
		`{"type":"text","id":"r","delta":"\ud800"}`,
		`{"type":"metadata","id":"r","framework":"f","usage":{"inputTokens":1e400}}`,
		`{}`, `[]`, `null`, ``, `{"type":"bogus","id":"r"}`,
		"{\"type\":\"text\",\"id\":\"r\",\"delta\":\"\xff\"}",
	} {
		f.Add([]byte(seed))
	}
	known := map[string]bool{
		wText: true, wThinking: true, wToolCall: true, wToolResult: true, wActivity: true, wMetadata: true,
		wState: true, wResult: true, wApprovalRequest: true, wClientToolRequest: true, wError: true, wDone: true, wArtifact: true,
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		m, err := decodeWorkerLine(line)
		if err != nil {
			if m.Type != "" || m.ID != "" {
				t.Fatalf("a rejected line gave a message: %+v", m)
			}
			if !utf8.ValidString(err.Error()) && utf8.Valid(line) {
				t.Fatalf("error %q is not valid UTF-8", err)
			}
			return
		}
		if !known[m.Type] {
			t.Fatalf("accepted unknown type %q", m.Type)
		}
		if m.ID == "" {
			t.Fatal("accepted a line without id")
		}
		event, ok := m.event()
		if !ok {
			return
		}
		b, err := event.JSON()
		if err != nil {
			t.Fatalf("event of %q does not encode: %v", line, err)
		}
		if !json.Valid(b) {
			t.Fatalf("event of %q encodes to invalid JSON %q", line, b)
		}
		switch m.Type {
		case wToolCall:
			if len(m.Arguments) == 0 || m.Arguments[0] != '{' {
				t.Fatalf("tool_call arguments %q are not an object", m.Arguments)
			}
		case wState:
			if m.StateDelta == nil {
				t.Fatal("state without delta")
			}
		}
	})
}
