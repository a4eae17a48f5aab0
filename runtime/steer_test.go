package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// toolSteerAgent calls a tool and says "before", waits for a steer, then
// calls another tool and answers the steer.
type toolSteerAgent struct{ waiting chan struct{} }

func (toolSteerAgent) TakesSteers() bool { return true }

func (a toolSteerAgent) Run(ctx context.Context, turn *Turn, emit Emit) error {
	tool := func(id string) error {
		if err := emit(Event{Type: EventToolCall, ID: id, Name: "lookup", Arguments: json.RawMessage(`{}`)}); err != nil {
			return err
		}
		return emit(Event{Type: EventToolResult, CallID: id, Name: "lookup", Output: json.RawMessage(`"ok"`)})
	}
	if err := tool("call_1"); err != nil {
		return err
	}
	if err := emit(Event{Type: EventTextDelta, Delta: "before"}); err != nil {
		return err
	}
	close(a.waiting)
	select {
	case <-turn.Steers.Ready():
	case <-ctx.Done():
		return ctx.Err()
	}
	steers, err := turn.Steers.Take()
	if err != nil {
		return err
	}
	if err := tool("call_2"); err != nil {
		return err
	}
	return emit(Event{Type: EventTextDelta, Delta: "after: " + steers[0].Input})
}

// The transcript of a steered turn: the user's message, the answer before
// the steer with its tool activity, the steer (a user message, content
// parts as the transcript keeps them), the answer after it with its own;
// the log says response.steered between them. A steer of the finished
// response is refused, and an agent without steering refuses every steer.
func TestSteerTranscriptSplitsTheAnswer(t *testing.T) {
	agent := toolSteerAgent{waiting: make(chan struct{})}
	s := newTestService(t, agent, nil)
	r, err := s.StartResponse(context.Background(), testUser, ResponseRequest{Input: "look", Background: true})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-agent.waiting:
	case <-time.After(10 * time.Second):
		t.Fatal("the agent did not start")
	}
	accepted, err := s.SteerResponse(context.Background(), testUser, r.SessionID, r.ID,
		SteerRequest{Input: "go left", Parts: []InputPart{{Type: "text", Text: "go left"}, {Type: "data", Data: json.RawMessage(`{"k":1}`)}}})
	if err != nil {
		t.Fatal(err)
	}
	if out := waitDone(t, r); out.Err != nil || out.Envelope.OutputText != "beforeafter: go left" {
		t.Fatalf("outcome %+v", out)
	}
	msgs, err := s.history(context.Background(), testUser.UserID, r.SessionID, 10)
	if err != nil {
		t.Fatal(err)
	}
	type shape struct {
		role, content string
		tools         int
	}
	want := []shape{{"user", `"look"`, 0}, {"assistant", `"before"`, 2},
		{"user", `[{"text":"go left","type":"text"},{"content":"attached","mediaType":"","type":"data"}]`, 0}, {"assistant", `"after: go left"`, 2}}
	if len(msgs) != len(want) {
		t.Fatalf("%d transcript messages, want %d: %+v", len(msgs), len(want), msgs)
	}
	for i, m := range msgs {
		var meta struct {
			ResponseID string       `json:"responseId"`
			Tools      []OutputItem `json:"tools"`
		}
		_ = json.Unmarshal(m.Metadata, &meta)
		got := shape{m.Role, string(m.Content), len(meta.Tools)}
		if got != want[i] || meta.ResponseID != r.ID {
			t.Errorf("message %d = %+v (response %s), want %+v", i, got, meta.ResponseID, want[i])
		}
	}
	frames, _, err := s.LoggedEvents(context.Background(), testUser, r.SessionID, r.ID, -1, 0)
	if err != nil {
		t.Fatal(err)
	}
	var steered *Frame
	for i := range frames {
		if frames[i].Type == EventSteered {
			steered = &frames[i]
		}
	}
	if steered == nil || !json.Valid(steered.JSON) || !strings.Contains(string(steered.JSON), accepted.ID) {
		t.Fatalf("no response.steered naming %s in the log", accepted.ID)
	}
	_, err = s.SteerResponse(context.Background(), testUser, r.SessionID, r.ID, SteerRequest{Input: "more"})
	if e := AsError(err); !errors.Is(err, ErrConflict) || e.Code != CodeResponseFinal {
		t.Errorf("steer of a final response: %v", err)
	}

	plain := newTestService(t, AgentFunc(func(ctx context.Context, turn *Turn, emit Emit) error {
		<-ctx.Done()
		return ctx.Err()
	}), nil)
	r2, err := plain.StartResponse(context.Background(), testUser, ResponseRequest{Input: "x", Background: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Cancel()
	_, err = plain.SteerResponse(context.Background(), testUser, r2.SessionID, r2.ID, SteerRequest{Input: "more"})
	if e := AsError(err); !errors.Is(err, ErrConflict) || e.Code != CodeSteerUnsupported {
		t.Errorf("steer of an agent without steering: %v", err)
	}
}
