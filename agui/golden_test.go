package agui_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/runtime"
)

var update = flag.Bool("update", false, "rewrite the golden event sequences in testdata/")

// A golden scenario is a conversation of runs on one thread; each run's
// body may depend on the replies before it (interrupt and tool call IDs).
type golden struct {
	name  string
	setup setup
	runs  []func(prev []reply) string
}

const userHi = `{"id":"u1","role":"user","content":"hi there"}`

// body is a RunAgentInput on the golden thread; v10 adds protocolVersion.
func body(runID string, v10 bool, messages string, extra string) string {
	b := `{"threadId":"th-golden","runId":"` + runID + `","messages":[` + messages + `],"state":{"seeded":true}`
	if v10 {
		b += `,"protocolVersion":"1.0"`
	}
	if extra != "" {
		b += "," + extra
	}
	return b + "}"
}

func static(s string) func([]reply) string { return func([]reply) string { return s } }

// interruptID is the first interrupt of a reply's RUN_FINISHED.
func interruptID(r reply) string {
	last := r.Events[len(r.Events)-1]
	o, _ := last["outcome"].(map[string]any)
	list, _ := o["interrupts"].([]any)
	if len(list) == 0 {
		return "missing"
	}
	return list[0].(map[string]any)["id"].(string)
}

// toolCallID is the first TOOL_CALL_START's ID of a reply.
func toolCallID(r reply) string {
	if e := find(r.Events, "TOOL_CALL_START"); e != nil {
		return e["toolCallId"].(string)
	}
	return "missing"
}

func resumeWith(runID string, v10 bool, status, payload string) func([]reply) string {
	return func(prev []reply) string {
		entry := `{"interruptId":"` + interruptID(prev[len(prev)-1]) + `","status":"` + status + `"`
		if payload != "" {
			entry += `,"payload":` + payload
		}
		return body(runID, v10, userHi, `"resume":[`+entry+`}]`)
	}
}

var goldens = []golden{
	{name: "text", runs: []func([]reply) string{static(body("run-1", true, userHi, `"forwardedProps":{"userId":"mallory"}`))}},
	{name: "handshake", runs: []func([]reply) string{static(body("run-1", true, "", ""))}},
	{name: "thinking_and_tool", setup: setup{echo: &config.EchoBackend{Thinking: true, ToolCall: true}, thinking: true},
		runs: []func([]reply) string{static(body("run-1", true, userHi, ""))}},
	{name: "state", setup: setup{agent: stateAgent}, runs: []func([]reply) string{static(body("run-1", true, userHi, ""))}},
	{name: "frontend_tool", setup: setup{echo: &config.EchoBackend{ClientTool: "get_location"}}, runs: []func([]reply) string{
		static(body("run-1", true, userHi, `"tools":[{"name":"get_location","description":"d","parameters":{"type":"object"}}]`)),
		func(prev []reply) string {
			id := toolCallID(prev[0])
			msgs := userHi + `,{"id":"a1","role":"assistant","toolCalls":[{"id":"` + id + `","type":"function","function":{"name":"get_location","arguments":"{}"}}]}` +
				`,{"id":"t1","role":"tool","toolCallId":"` + id + `","content":"Oslo"}`
			return body("run-2", true, msgs, `"tools":[{"name":"get_location","description":"d","parameters":{"type":"object"}}]`)
		},
	}},
	{name: "approval_approved", setup: setup{echo: &config.EchoBackend{Approval: "send_email"}}, runs: []func([]reply) string{
		static(body("run-1", true, userHi, "")), resumeWith("run-2", true, "resolved", `{"approved":true}`),
	}},
	{name: "approval_denied", setup: setup{echo: &config.EchoBackend{Approval: "send_email"}}, runs: []func([]reply) string{
		static(body("run-1", false, userHi, "")), resumeWith("run-2", false, "resolved", `{"approved":false}`),
	}},
	{name: "approval_cancelled", setup: setup{echo: &config.EchoBackend{Approval: "send_email"}}, runs: []func([]reply) string{
		static(body("run-1", true, userHi, "")), resumeWith("run-2", true, "cancelled", ""),
	}},
	{name: "client_tool_interrupt", setup: setup{echo: &config.EchoBackend{ClientTool: "get_location"}}, runs: []func([]reply) string{
		static(body("run-1", true, userHi, "")), resumeWith("run-2", true, "resolved", `{"city":"Oslo"}`),
	}},
	{name: "client_tool_cancelled", setup: setup{echo: &config.EchoBackend{ClientTool: "get_location"}}, runs: []func([]reply) string{
		static(body("run-1", true, userHi, "")), resumeWith("run-2", true, "cancelled", ""),
	}},
	{name: "client_tool_cancelled_legacy", setup: setup{echo: &config.EchoBackend{ClientTool: "get_location"}}, runs: []func([]reply) string{
		static(body("run-1", false, userHi, "")), resumeWith("run-2", false, "cancelled", ""),
	}},
	{name: "chained_approval_and_tool", setup: setup{agent: chainAgent}, runs: []func([]reply) string{
		static(body("run-1", true, userHi, "")), resumeWith("run-2", true, "resolved", `{"approved":true}`),
		func(prev []reply) string {
			return body("run-3", true, userHi, `"resume":[{"interruptId":"`+interruptID(prev[1])+`","status":"resolved","payload":"Oslo"}]`)
		},
	}},
	{name: "timeout", setup: setup{echo: &config.EchoBackend{DelayMs: 2000}, tune: func(o *runtime.Options) { o.Timeout = 200 * time.Millisecond }},
		runs: []func([]reply) string{static(body("run-1", true, userHi, ""))}},
	{name: "failure", setup: setup{echo: &config.EchoBackend{Fail: true}}, runs: []func([]reply) string{static(body("run-1", true, userHi, ""))}},
}

// chainAgent streams text, asks for an approval, emits state, then asks
// for a client tool the client did not offer, then answers.
var chainAgent = runtime.AgentFunc(func(ctx context.Context, turn *runtime.Turn, emit runtime.Emit) error {
	if err := emit(runtime.Event{Type: runtime.EventTextDelta, Delta: "Drafted. "}); err != nil {
		return err
	}
	if err := emit(runtime.Event{Type: runtime.EventStateDelta, StateDelta: map[string]json.RawMessage{"step": json.RawMessage(`1`)}}); err != nil {
		return err
	}
	if err := turn.RequestApproval(ctx, runtime.ApprovalRequest{Action: "send", Message: "Send it?", Arguments: json.RawMessage(`{"to":"bob"}`)}); err != nil {
		return err
	}
	if err := emit(runtime.Event{Type: runtime.EventStateDelta, StateDelta: map[string]json.RawMessage{"step": json.RawMessage(`2`)}}); err != nil {
		return err
	}
	out, err := turn.RequestClientTool(ctx, runtime.ClientToolRequest{Name: "get_location", Arguments: json.RawMessage(`{}`), CallID: "call-loc"})
	if err != nil {
		return err
	}
	if err := emit(runtime.Event{Type: runtime.EventAgentActivity, Activity: "sent", Target: "bob"}); err != nil {
		return err
	}
	return emit(runtime.Event{Type: runtime.EventTextDelta, Delta: "Sent from " + string(out) + "."})
})

var (
	idPattern   = regexp.MustCompile(`(msg-|resp_|approval_|client_tool_|call_)?[0-9a-f]{32}`)
	timePattern = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?\+00:00`)
	tsPattern   = regexp.MustCompile(`"timestamp":\d+`)
)

// normalizer replaces generated IDs with stable names in order of first
// appearance, and times with placeholders.
type normalizer map[string]string

func (n normalizer) line(ev map[string]any) string {
	b, _ := json.Marshal(ev) // map keys sorted
	s := tsPattern.ReplaceAllString(string(b), `"timestamp":0`)
	s = timePattern.ReplaceAllString(s, "<time>")
	return idPattern.ReplaceAllStringFunc(s, func(id string) string {
		if name, ok := n[id]; ok {
			return name
		}
		kind := "id"
		if m := idPattern.FindStringSubmatch(id); m[1] != "" {
			kind = strings.TrimRight(m[1], "-_")
		}
		n[id] = fmt.Sprintf("<%s-%d>", kind, len(n)+1)
		return n[id]
	})
}

// TestGoldenSequences compares each scenario's AG-UI events, normalized,
// with testdata/<name>.jsonl (go test -run Golden -update rewrites them).
// Every run must start with RUN_STARTED and end with a terminal event.
func TestGoldenSequences(t *testing.T) {
	for _, g := range goldens {
		t.Run(g.name, func(t *testing.T) {
			eachStore(t, g.setup, func(t *testing.T, ts *testServer) {
				var replies []reply
				var lines []string
				norm := normalizer{}
				for i, run := range g.runs {
					r := ts.run(run(replies))
					mustRun(t, r)
					replies = append(replies, r)
					lines = append(lines, fmt.Sprintf("# run %d", i+1))
					for _, ev := range r.Events {
						lines = append(lines, norm.line(ev))
					}
				}
				got := strings.Join(lines, "\n") + "\n"
				path := filepath.Join("testdata", g.name+".jsonl")
				if *update {
					if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (run with -update to create it)", err)
				}
				if got != string(want) {
					t.Fatalf("events differ from %s:\n--- got\n%s--- want\n%s", path, got, want)
				}
			})
		})
	}
}
