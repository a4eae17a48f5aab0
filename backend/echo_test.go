package backend

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/runtime"
)

// collect returns an Emit that appends every event to *events.
func collect(events *[]runtime.Event) runtime.Emit {
	return func(e runtime.Event) error {
		*events = append(*events, e)
		return nil
	}
}

// textOf concatenates the text deltas of events.
func textOf(events []runtime.Event) string {
	var b strings.Builder
	for _, e := range events {
		if e.Type == runtime.EventTextDelta {
			b.WriteString(e.Delta)
		}
	}
	return b.String()
}

func TestEchoStreamsTheInput(t *testing.T) {
	input := "the quick brown fox jumps over the lazy dog"
	var events []runtime.Event
	err := NewEcho(config.EchoBackend{}).Run(context.Background(),
		&runtime.Turn{ResponseID: "resp_1", Input: input}, collect(&events))
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if len(events) < 3 || len(events) > echoMaxDeltas {
		t.Errorf("got %d events, want 3 to %d text deltas", len(events), echoMaxDeltas)
	}
	for _, e := range events {
		if e.Type != runtime.EventTextDelta || e.Delta == "" {
			t.Errorf("got event %+v, want a non-empty text delta", e)
		}
	}
	if got, want := textOf(events), "Echo: "+input; got != want {
		t.Errorf("answer is %q, want %q", got, want)
	}
}

func TestEchoDeltasConcatenateExactly(t *testing.T) {
	for _, answer := range []string{"", "Echo: ", "Echo: x", "Echo:  two  spaces ", "Echo: line\nbreak and more words here"} {
		deltas := echoDeltas(answer)
		if got := strings.Join(deltas, ""); got != answer {
			t.Errorf("echoDeltas(%q) joins to %q", answer, got)
		}
		if len(deltas) > echoMaxDeltas {
			t.Errorf("echoDeltas(%q) gave %d deltas, want at most %d", answer, len(deltas), echoMaxDeltas)
		}
	}
}

func TestEchoThinkingAndToolCallComeFirst(t *testing.T) {
	input := `say "hi"`
	var events []runtime.Event
	agent := NewEcho(config.EchoBackend{Thinking: true, ToolCall: true})
	err := agent.Run(context.Background(),
		&runtime.Turn{ResponseID: "resp_abc", Input: input}, collect(&events))
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if len(events) < 4 {
		t.Fatalf("got %d events, want at least 4: %+v", len(events), events)
	}

	if events[0].Type != runtime.EventThinkingDelta || events[0].Delta == "" {
		t.Errorf("event 0 is %+v, want a thinking delta", events[0])
	}

	call, result := events[1], events[2]
	if call.Type != runtime.EventToolCall || call.Name != "echo" || call.ID == "" {
		t.Errorf("event 1 is %+v, want the echo tool call", call)
	}
	var args map[string]string
	if err := json.Unmarshal(call.Arguments, &args); err != nil || args["text"] != input {
		t.Errorf("tool arguments are %s, want {\"text\": %q}", call.Arguments, input)
	}
	if result.Type != runtime.EventToolResult || result.Name != "echo" || result.CallID != call.ID {
		t.Errorf("event 2 is %+v, want the result of call %q", result, call.ID)
	}
	var output string
	if err := json.Unmarshal(result.Output, &output); err != nil || output != input {
		t.Errorf("tool output is %s, want the JSON string %q", result.Output, input)
	}

	for _, e := range events[3:] {
		if e.Type != runtime.EventTextDelta {
			t.Errorf("got %s after the tool result, want only text deltas", e.Type)
		}
	}
	if got, want := textOf(events), "Echo: "+input; got != want {
		t.Errorf("answer is %q, want %q", got, want)
	}
}

func TestEchoDelayHonoursCancellation(t *testing.T) {
	agent := NewEcho(config.EchoBackend{DelayMs: 60000})
	ctx, cancel := context.WithCancel(context.Background())
	var events []runtime.Event
	first := make(chan struct{})
	emit := func(e runtime.Event) error {
		events = append(events, e)
		if len(events) == 1 {
			close(first)
		}
		return nil
	}
	done := make(chan error, 1)
	go func() {
		done <- agent.Run(ctx, &runtime.Turn{Input: "a b c d e"}, emit)
	}()

	// Cancel while the agent sleeps after its first event: it should not
	// sleep the full minute.
	select {
	case <-first:
	case <-time.After(10 * time.Second):
		t.Fatal("no first event")
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Run returned %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after cancellation")
	}
	if len(events) != 1 {
		t.Errorf("got %d events before cancellation, want 1", len(events))
	}
}

func TestEchoFailAfterFirstDelta(t *testing.T) {
	var events []runtime.Event
	err := NewEcho(config.EchoBackend{Fail: true}).Run(context.Background(),
		&runtime.Turn{Input: "one two three four five"}, collect(&events))
	if err == nil || err.Error() != "echo backend configured to fail" {
		t.Errorf("Run returned %v, want the configured failure", err)
	}
	if len(events) != 1 || events[0].Type != runtime.EventTextDelta {
		t.Errorf("got events %+v, want exactly one text delta", events)
	}
}

func TestEchoStopsWhenEmitFails(t *testing.T) {
	stop := errors.New("response is over")
	calls := 0
	err := NewEcho(config.EchoBackend{Thinking: true}).Run(context.Background(),
		&runtime.Turn{Input: "a b c d"}, func(runtime.Event) error {
			calls++
			return stop
		})
	if !errors.Is(err, stop) {
		t.Errorf("Run returned %v, want the emit error", err)
	}
	if calls != 1 {
		t.Errorf("emit was called %d times, want 1", calls)
	}
}

func TestNewChoosesOneBackend(t *testing.T) {
	dir := t.TempDir()
	if _, err := New(config.Backend{}, dir, nil); err == nil {
		t.Error("New with no backend succeeded, want an error")
	}
	both := config.Backend{Echo: &config.EchoBackend{}, Exec: &config.ExecBackend{Command: []string{"cat"}}}
	if _, err := New(both, dir, nil); err == nil {
		t.Error("New with two backends succeeded, want an error")
	}
	if a, err := New(config.Backend{Echo: &config.EchoBackend{}}, dir, nil); err != nil {
		t.Errorf("New(echo): %v", err)
	} else if _, ok := a.(*Echo); !ok {
		t.Errorf("New(echo) returned %T", a)
	}
	if a, err := New(config.Backend{Exec: &config.ExecBackend{Command: []string{"cat"}}}, dir, nil); err != nil {
		t.Errorf("New(exec): %v", err)
	} else if _, ok := a.(*Exec); !ok {
		t.Errorf("New(exec) returned %T", a)
	}
	a, err := New(config.Backend{Exec: &config.ExecBackend{}}, dir, nil)
	if err == nil || a != nil {
		t.Errorf("New(exec without command) = %v, %v; want nil and an error", a, err)
	}
}

func TestEchoApprovalApproved(t *testing.T) {
	var got []runtime.ApprovalRequest
	turn := &runtime.Turn{ResponseID: "resp_a", Input: `send "it"`,
		RequestApproval: func(ctx context.Context, req runtime.ApprovalRequest) error {
			got = append(got, req)
			return nil
		}}
	var events []runtime.Event
	if err := NewEcho(config.EchoBackend{Approval: "send_email"}).Run(context.Background(), turn, collect(&events)); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if len(got) != 1 {
		t.Fatalf("RequestApproval called %d times, want 1", len(got))
	}
	req := got[0]
	if req.Action != "send_email" || !strings.Contains(req.Message, "send_email") || !strings.HasSuffix(req.Message, "?") && !strings.HasSuffix(req.Message, ".") {
		t.Errorf("approval request is %+v, want action send_email and a sentence naming it", req)
	}
	var args map[string]string
	if err := json.Unmarshal(req.Arguments, &args); err != nil || len(args) != 1 || args["input"] != turn.Input {
		t.Errorf("approval arguments are %s, want {\"input\": %q}", req.Arguments, turn.Input)
	}
	if got, want := textOf(events), "Echo: "+turn.Input; got != want {
		t.Errorf("answer is %q, want %q", got, want)
	}
}

func TestEchoApprovalDeniedOrExpired(t *testing.T) {
	for _, refusal := range []error{runtime.ErrApprovalDenied, runtime.ErrApprovalExpired} {
		turn := &runtime.Turn{Input: "x", RequestApproval: func(context.Context, runtime.ApprovalRequest) error {
			return refusal
		}}
		var events []runtime.Event
		err := NewEcho(config.EchoBackend{Approval: "act", Thinking: true}).Run(context.Background(), turn, collect(&events))
		if !errors.Is(err, refusal) {
			t.Errorf("Run returned %v, want %v", err, refusal)
		}
		if len(events) != 0 {
			t.Errorf("after %v got events %+v, want none", refusal, events)
		}
	}
}

func TestEchoClientTool(t *testing.T) {
	cases := []struct {
		output json.RawMessage
		said   string
	}{
		{json.RawMessage(`"Paris"`), "Paris"},
		{json.RawMessage(`{ "lat": 48.8,  "lon": 2.3 }`), `{"lat":48.8,"lon":2.3}`},
		{json.RawMessage(`null`), "null"},
		{nil, "null"},
	}
	for _, c := range cases {
		var got []runtime.ClientToolRequest
		turn := &runtime.Turn{Input: "where am I", RequestClientTool: func(ctx context.Context, req runtime.ClientToolRequest) (json.RawMessage, error) {
			got = append(got, req)
			return c.output, nil
		}}
		var events []runtime.Event
		if err := NewEcho(config.EchoBackend{ClientTool: "get_location"}).Run(context.Background(), turn, collect(&events)); err != nil {
			t.Fatalf("Run: %v", err)
		}
		if len(got) != 1 || got[0].Name != "get_location" || string(got[0].Arguments) != `{"input":"where am I"}` {
			t.Errorf("client tool requests are %+v, want one get_location with the input", got)
		}
		if want := "Echo: where am I (get_location said: " + c.said + ")"; textOf(events) != want {
			t.Errorf("answer is %q, want %q", textOf(events), want)
		}
	}
}

func TestEchoClientToolFails(t *testing.T) {
	turn := &runtime.Turn{Input: "x", RequestClientTool: func(context.Context, runtime.ClientToolRequest) (json.RawMessage, error) {
		return nil, runtime.ErrClientToolFailed
	}}
	var events []runtime.Event
	err := NewEcho(config.EchoBackend{ClientTool: "t"}).Run(context.Background(), turn, collect(&events))
	if !errors.Is(err, runtime.ErrClientToolFailed) || len(events) != 0 {
		t.Errorf("Run = %v with %d events, want ErrClientToolFailed and none", err, len(events))
	}
}

func TestEchoApprovalThenClientTool(t *testing.T) {
	var order []string
	turn := &runtime.Turn{Input: "go",
		RequestApproval: func(context.Context, runtime.ApprovalRequest) error {
			order = append(order, "approval")
			return nil
		},
		RequestClientTool: func(context.Context, runtime.ClientToolRequest) (json.RawMessage, error) {
			order = append(order, "tool")
			return json.RawMessage(`42`), nil
		}}
	var events []runtime.Event
	if err := NewEcho(config.EchoBackend{Approval: "a", ClientTool: "t"}).Run(context.Background(), turn, collect(&events)); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if strings.Join(order, ",") != "approval,tool" {
		t.Errorf("order is %v, want approval then tool", order)
	}
	if want := "Echo: go (t said: 42)"; textOf(events) != want {
		t.Errorf("answer is %q, want %q", textOf(events), want)
	}

	// Denied: the tool is never asked for.
	order = nil
	turn.RequestApproval = func(context.Context, runtime.ApprovalRequest) error { return runtime.ErrApprovalDenied }
	if err := NewEcho(config.EchoBackend{Approval: "a", ClientTool: "t"}).Run(context.Background(), turn, collect(&events)); !errors.Is(err, runtime.ErrApprovalDenied) {
		t.Errorf("Run returned %v, want ErrApprovalDenied", err)
	}
	if len(order) != 0 {
		t.Errorf("after a denial the tool was called: %v", order)
	}
}

func TestEchoRequestsWithoutRuntimeSupport(t *testing.T) {
	for _, cfg := range []config.EchoBackend{{Approval: "a"}, {ClientTool: "t"}} {
		err := NewEcho(cfg).Run(context.Background(), &runtime.Turn{Input: "x"}, func(runtime.Event) error { return nil })
		if err == nil || !strings.Contains(err.Error(), "runtime offers no") {
			t.Errorf("Run(%+v) without the Turn function returned %v, want a clear error", cfg, err)
		}
	}
}

func TestEchoEchoesDataAndFilesAsArtifacts(t *testing.T) {
	var events []runtime.Event
	turn := &runtime.Turn{ResponseID: "resp_1", Input: "look", Content: []runtime.ContentInput{
		{Type: "text", Text: "look"},
		{Type: "data", Value: json.RawMessage(`{"n":1}`)},
		{Type: "file", AssetID: "asset_1", MediaType: "application/pdf", SizeBytes: 3, Name: "r.pdf",
			Data: func(context.Context) ([]byte, error) { return []byte("%PD"), nil }},
		{Type: "file", URL: "https://x.example/a.png", MediaType: "image/png"},
	}}
	if err := NewEcho(config.EchoBackend{}).Run(context.Background(), turn, collect(&events)); err != nil {
		t.Fatal(err)
	}
	if got, want := textOf(events), "Echo: look [data] [file r.pdf] [file image/png]"; got != want {
		t.Errorf("answer %q, want %q", got, want)
	}
	var parts []runtime.ArtifactPart
	for _, e := range events {
		if e.Type == runtime.EventArtifact {
			if !e.Artifact.LastChunk || len(e.Artifact.Parts) != 1 {
				t.Errorf("artifact %+v", e.Artifact)
			}
			parts = append(parts, e.Artifact.Parts...)
		}
	}
	if len(parts) != 3 || string(parts[0].Data) != `{"n":1}` || parts[1].Type != "text" || !strings.Contains(parts[1].Text, "application/pdf, 3 bytes") ||
		parts[2].URL != "https://x.example/a.png" {
		t.Fatalf("artifact parts %+v", parts)
	}
}

// echoDeltasBySplitting is echoDeltas written the plain way: the words
// (each with the space after it), grouped.
func echoDeltasBySplitting(answer string) []string {
	var words []string
	for _, w := range strings.SplitAfter(answer, " ") {
		if w != "" {
			words = append(words, w)
		}
	}
	groups := min(echoMaxDeltas, len(words))
	var deltas []string
	for g := range groups {
		deltas = append(deltas, strings.Join(words[g*len(words)/groups:(g+1)*len(words)/groups], ""))
	}
	return deltas
}

func TestEchoDeltasGroupWholeWords(t *testing.T) {
	inputs := []string{"", " ", "  ", "a", "a ", " a", "Echo: hello", "Echo:  two  spaces ", "one two three four five six seven"}
	for n := range 40 {
		inputs = append(inputs, strings.Repeat("w ", n)+strings.Repeat(" ", n%3)+"end")
	}
	for _, answer := range inputs {
		if got, want := echoDeltas(answer), echoDeltasBySplitting(answer); strings.Join(got, "|") != strings.Join(want, "|") || len(got) != len(want) {
			t.Errorf("echoDeltas(%q) = %q, want %q", answer, got, want)
		}
	}
}
