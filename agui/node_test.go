package agui_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/runtime"
)

// RequireNodeEnv, when set to 1, makes the real-client tests fail instead
// of skipping when node or conformance/agui/node_modules is missing. CI
// sets it (after npm ci in conformance/agui).
const RequireNodeEnv = "HARNEST_REQUIRE_NODE"

// conformanceDir is the Node harness, ready to run, or the test is skipped
// (failed under HARNEST_REQUIRE_NODE=1).
func conformanceDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("../conformance/agui")
	if err != nil {
		t.Fatal(err)
	}
	problem := ""
	if _, err := exec.LookPath("node"); err != nil {
		problem = "node is not on PATH"
	}
	for _, pkg := range []string{"@ag-ui/client", "agui-client-0059", "@copilotkit/runtime"} {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", pkg, "package.json")); err != nil && problem == "" {
			problem = "conformance/agui/node_modules lacks " + pkg + " (run npm ci in conformance/agui)"
		}
	}
	if problem != "" {
		if os.Getenv(RequireNodeEnv) == "1" {
			t.Fatalf("the real AG-UI clients are required (%s=1): %s", RequireNodeEnv, problem)
		}
		t.Skip(problem)
	}
	return dir
}

// clientRun is one runAgent call as the Node harness saw it.
type clientRun struct {
	Name     string   `json:"name"`
	Resolved bool     `json:"resolved"`
	Error    string   `json:"error"`
	Events   []string `json:"events"`
	Finished *struct {
		Outcome            string            `json:"outcome"`
		Result             json.RawMessage   `json:"result"`
		Interrupts         []json.RawMessage `json:"interrupts"`
		PendingToolCallIDs []string          `json:"pendingToolCallIds"`
	} `json:"finished"`
	RunError *struct {
		Message string `json:"message"`
		Code    string `json:"code"`
	} `json:"runError"`
	Failed         string `json:"failed"`
	RefusedLocally bool   `json:"refusedLocally"`
}

// clientReport is what run.mjs prints.
type clientReport struct {
	Client   string      `json:"client"`
	ThreadID string      `json:"threadId"`
	Runs     []clientRun `json:"runs"`
	Messages []struct {
		ID         string          `json:"id"`
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		ToolCallID string          `json:"toolCallId"`
		ToolCalls  []struct {
			ID       string `json:"id"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"toolCalls"`
	} `json:"messages"`
	State             map[string]any    `json:"state"`
	PendingInterrupts []json.RawMessage `json:"pendingInterrupts"`
	Warnings          []string          `json:"warnings"`
}

// runNode runs a Node script of the harness and decodes its JSON report.
func runNode(t *testing.T, dir string, out any, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "COPILOTKIT_TELEMETRY_DISABLED=true", "DO_NOT_TRACK=1", "SCARF_ANALYTICS=false")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("node %s: %v\nstdout: %s\nstderr: %s", strings.Join(args, " "), err, b, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), out); err != nil {
		t.Fatalf("node %s printed no report: %v\n%s\nstderr: %s", strings.Join(args, " "), err, b, stderr.String())
	}
}

// content is a message's content as text.
func content(raw json.RawMessage) string {
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

// stateAgent streams state: count and items, a key that needs escaping in
// a JSON pointer, and a reserved key the client must never see; a second
// turn counts on from the session state.
var stateAgent = runtime.AgentFunc(func(ctx context.Context, turn *runtime.Turn, emit runtime.Emit) error {
	count := 0
	_ = json.Unmarshal(turn.State["count"], &count)
	if err := emit(runtime.Event{Type: runtime.EventStateDelta, StateDelta: map[string]json.RawMessage{
		"count": json.RawMessage(fmt.Sprint(count + 1)), "items": json.RawMessage(`["a"]`), "_secret": json.RawMessage(`"hidden"`),
	}}); err != nil {
		return err
	}
	if err := emit(runtime.Event{Type: runtime.EventTextDelta, Delta: "Counting."}); err != nil {
		return err
	}
	return emit(runtime.Event{Type: runtime.EventStateDelta, StateDelta: map[string]json.RawMessage{
		"count": json.RawMessage(fmt.Sprint(count + 2)), "a/b~c": json.RawMessage(`true`),
	}})
})

// clientScenarios are the scenarios run.mjs plays, with the server each
// needs and what the report must show.
var clientScenarios = []struct {
	name  string
	setup setup
	check func(t *testing.T, ts *testServer, r clientReport)
}{
	{"text", setup{}, func(t *testing.T, ts *testServer, r clientReport) {
		assistant := assistantTexts(r)
		if len(assistant) != 2 || assistant[0] != "Echo: hello from AG-UI" || assistant[1] != "Echo: and again" {
			t.Fatalf("assistant messages %q", assistant)
		}
		// The thread is alice's session: forwardedProps granted nothing.
		mustStatus(t, ts.as(testTokens[0].Token).get("/sessions/"+r.ThreadID), 200)
		mustStatus(t, ts.as(testTokens[1].Token).get("/sessions/"+r.ThreadID), 404)
	}},
	{"handshake", setup{}, func(t *testing.T, ts *testServer, r clientReport) {
		if got := strings.Join(r.Runs[0].Events, ","); got != "RUN_STARTED,RUN_FINISHED" {
			t.Fatalf("handshake events %s", got)
		}
		mustStatus(t, ts.as(testTokens[0].Token).get("/sessions/"+r.ThreadID), 200)
	}},
	{"thinking", setup{echo: &config.EchoBackend{Thinking: true, ToolCall: true}, thinking: true}, func(t *testing.T, ts *testServer, r clientReport) {
		events := strings.Join(r.Runs[0].Events, ",")
		for _, want := range []string{"REASONING_START,REASONING_MESSAGE_START,REASONING_MESSAGE_CONTENT,REASONING_MESSAGE_END,REASONING_END",
			"TOOL_CALL_START,TOOL_CALL_ARGS,TOOL_CALL_END,TOOL_CALL_RESULT"} {
			if !strings.Contains(events, want) {
				t.Fatalf("events %s lack %s", events, want)
			}
		}
		roles := ""
		for _, m := range r.Messages {
			roles += m.Role + ","
		}
		if roles != "user,reasoning,assistant,tool,assistant," {
			t.Fatalf("message roles %s", roles)
		}
	}},
	{"state", setup{agent: stateAgent}, func(t *testing.T, ts *testServer, r clientReport) {
		want := `{"a/b~c":true,"count":4,"items":["a"],"seeded":true}`
		if got, _ := json.Marshal(r.State); string(got) != want {
			t.Fatalf("state %s, want %s", got, want)
		}
		for _, run := range r.Runs {
			if !strings.HasPrefix(strings.Join(run.Events, ","), "RUN_STARTED,STATE_SNAPSHOT,STATE_DELTA") {
				t.Fatalf("run %s: the snapshot must precede the first delta: %v", run.Name, run.Events)
			}
		}
	}},
	{"frontend_tool", setup{echo: &config.EchoBackend{ClientTool: "get_location"}}, func(t *testing.T, ts *testServer, r clientReport) {
		first := r.Runs[0]
		if first.Finished == nil || first.Finished.Outcome != "success" || !strings.Contains(strings.Join(first.Events, ","), "TOOL_CALL_END") {
			t.Fatalf("the tool call run %+v", first)
		}
		if got := assistantTexts(r); len(got) != 1 || got[0] != "Echo: where am I (get_location said: Oslo)" {
			t.Fatalf("answer after the tool %q", got)
		}
	}},
	{"approve", setup{echo: &config.EchoBackend{Approval: "send_email"}}, func(t *testing.T, ts *testServer, r clientReport) {
		checkInterrupt(t, r)
		if got := assistantTexts(r); len(got) != 1 || got[0] != "Echo: send it" {
			t.Fatalf("answer after approval %q", got)
		}
		if len(r.PendingInterrupts) != 0 {
			t.Fatalf("interrupts still pending %s", r.PendingInterrupts)
		}
	}},
	{"deny", setup{echo: &config.EchoBackend{Approval: "send_email"}}, func(t *testing.T, ts *testServer, r clientReport) {
		checkInterrupt(t, r)
		last := r.Runs[2]
		var result struct{ Status, ApprovalID string }
		if last.Finished == nil || json.Unmarshal(last.Finished.Result, &result) != nil || result.Status != "denied" || result.ApprovalID == "" {
			t.Fatalf("denied run %+v", last)
		}
		if got := assistantTexts(r); len(got) != 0 {
			t.Fatalf("a denied action answered %q", got)
		}
	}},
	{"timeout", setup{echo: &config.EchoBackend{DelayMs: 2000}, tune: func(o *runtime.Options) { o.Timeout = 300 * time.Millisecond }},
		func(t *testing.T, ts *testServer, r clientReport) {
			if e := r.Runs[0].RunError; e == nil || e.Message != "Response timed out" || e.Code != "timed_out" {
				t.Fatalf("timeout run %+v", r.Runs[0])
			}
		}},
	{"failure", setup{echo: &config.EchoBackend{Fail: true}}, func(t *testing.T, ts *testServer, r clientReport) {
		if e := r.Runs[0].RunError; e == nil || e.Code != "invocation_failed" || strings.Contains(e.Message, "configured to fail") {
			t.Fatalf("failed run %+v", r.Runs[0])
		}
	}},
}

func assistantTexts(r clientReport) []string {
	var out []string
	for _, m := range r.Messages {
		if m.Role == "assistant" && len(m.ToolCalls) == 0 {
			out = append(out, content(m.Content))
		}
	}
	return out
}

// checkInterrupt checks the first two runs of an approval scenario: an
// interrupt outcome, then a run the client refuses without resume.
func checkInterrupt(t *testing.T, r clientReport) {
	t.Helper()
	first := r.Runs[0]
	if first.Finished == nil || first.Finished.Outcome != "interrupt" || len(first.Finished.Interrupts) != 1 {
		t.Fatalf("interrupt run %+v", first)
	}
	var in struct {
		ID, Reason, Message, ExpiresAt string
		ResponseSchema                 map[string]any
	}
	_ = json.Unmarshal(first.Finished.Interrupts[0], &in)
	if !strings.HasPrefix(in.ID, "approval_") || in.Reason != "confirmation" || in.Message == "" || in.ExpiresAt == "" || in.ResponseSchema == nil {
		t.Fatalf("interrupt %s", first.Finished.Interrupts[0])
	}
	if !r.Runs[1].RefusedLocally {
		t.Fatalf("the client ran without resuming its interrupt: %+v", r.Runs[1])
	}
}

// TestRealClients drives every scenario with @ag-ui/client 1.0.0 and with
// the 0.0.59 that CopilotKit embeds. Every run must see RUN_STARTED and a
// terminal event, resolve, and leave no client warning behind.
func TestRealClients(t *testing.T) {
	dir := conformanceDir(t)
	for _, sc := range clientScenarios {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			s := sc.setup
			s.tokens = true
			ts := newTestServer(t, "", s)
			for _, version := range []string{"1.0.0", "0.0.59"} {
				t.Run(version, func(t *testing.T) {
					var r clientReport
					runNode(t, dir, &r, "run.mjs", version, sc.name, ts.URL+"/agui", testTokens[0].Token)
					for _, run := range r.Runs {
						if run.RefusedLocally {
							continue
						}
						if !run.Resolved || run.Failed != "" {
							t.Fatalf("run %q failed in the client: %+v", run.Name, run)
						}
						if len(run.Events) < 2 || run.Events[0] != "RUN_STARTED" {
							t.Fatalf("run %q did not start with RUN_STARTED: %v", run.Name, run.Events)
						}
						if last := run.Events[len(run.Events)-1]; last != "RUN_FINISHED" && last != "RUN_ERROR" {
							t.Fatalf("run %q saw no terminal event: %v", run.Name, run.Events)
						}
					}
					if len(r.Warnings) > 0 {
						t.Fatalf("client warnings: %q", r.Warnings)
					}
					sc.check(t, ts, r)
				})
			}
		})
	}
}

// copilotReport is what copilotkit.mjs prints.
type copilotReport struct {
	Info *struct {
		Version string   `json:"version"`
		Agents  []string `json:"agents"`
	} `json:"info"`
	Runs   []clientRun `json:"runs"`
	Finals map[string]struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		State             map[string]any    `json:"state"`
		PendingInterrupts []json.RawMessage `json:"pendingInterrupts"`
	} `json:"finals"`
	Warnings []string `json:"warnings"`
}

// TestCopilotKitRuntime runs the CopilotKit runtime (1.75, in-memory
// runner) in front of harnest and drives it as a CopilotKit frontend does:
// text, state, the frontend-tool round trip and an approval resumed. The
// runtime replays state deltas from {} and dies on a patch that does not
// apply, so this also proves the snapshot-first rule.
func TestCopilotKitRuntime(t *testing.T) {
	dir := conformanceDir(t)
	servers := map[string]setup{
		"text":     {},
		"state":    {agent: stateAgent},
		"tools":    {echo: &config.EchoBackend{ClientTool: "get_location"}},
		"approval": {echo: &config.EchoBackend{Approval: "send_email"}},
	}
	targets := map[string]string{"token": testTokens[0].Token}
	for id, s := range servers {
		s.tokens = true
		targets[id] = newTestServer(t, "", s).URL + "/agui"
	}
	arg, _ := json.Marshal(targets)
	var r copilotReport
	runNode(t, dir, &r, "copilotkit.mjs", string(arg))
	if r.Info == nil || r.Info.Version != "1.75.0" || len(r.Info.Agents) != 4 {
		t.Fatalf("runtime info %+v", r.Info)
	}
	if len(r.Runs) != 6 {
		t.Fatalf("runs %+v", r.Runs)
	}
	for _, run := range r.Runs {
		if !run.Resolved || run.Failed != "" || run.RunError != nil || run.Finished == nil {
			t.Fatalf("run %q through the runtime: %+v", run.Name, run)
		}
		if run.Events[0] != "RUN_STARTED" || run.Events[len(run.Events)-1] != "RUN_FINISHED" {
			t.Fatalf("run %q events %v", run.Name, run.Events)
		}
	}
	if len(r.Warnings) > 0 {
		t.Fatalf("warnings: %q", r.Warnings)
	}
	last := func(id string) string {
		msgs := r.Finals[id].Messages
		return content(msgs[len(msgs)-1].Content)
	}
	if got := last("text"); got != "Echo: hello through CopilotKit" {
		t.Fatalf("text answer %q", got)
	}
	if got, _ := json.Marshal(r.Finals["state"].State); string(got) != `{"a/b~c":true,"count":2,"items":["a"],"seeded":true}` {
		t.Fatalf("state %s", got)
	}
	if got := last("tools"); got != "Echo: where am I (get_location said: Oslo)" {
		t.Fatalf("tool answer %q", got)
	}
	if r.Runs[4].Finished.Outcome != "interrupt" || last("approval") != "Echo: send it" || len(r.Finals["approval"].PendingInterrupts) != 0 {
		t.Fatalf("approval through the runtime: %+v, %q", r.Runs[4], last("approval"))
	}
}
