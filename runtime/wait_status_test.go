package runtime

import (
	"context"
	"encoding/json"
	"testing"
)

// WaitStatus says pending while a client tool waits, submitted once it
// was answered (before the turn goes on), and nothing for another user or
// an unknown wait.
func TestWaitStatus(t *testing.T) {
	release := make(chan struct{})
	s := newTestService(t, AgentFunc(func(ctx context.Context, turn *Turn, emit Emit) error {
		if _, err := turn.RequestClientTool(ctx, ClientToolRequest{Name: "weather"}); err != nil {
			return err
		}
		<-release
		return emit(Event{Type: EventTextDelta, Delta: "done"})
	}), nil)
	defer close(release)
	ctx := context.Background()
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	r, err := s.StartResponse(ctx, testUser, ResponseRequest{Input: "hi"})
	if err != nil {
		t.Fatal(err)
	}
	o := r.Outcome()
	if o.Envelope.RequiredAction == nil {
		t.Fatalf("no wait: %+v", o.Envelope)
	}
	id := o.Envelope.RequiredAction.ID
	if st, found, err := s.WaitStatus(ctx, testUser, r.SessionID, id); err != nil || !found || st != "pending" {
		t.Fatalf("before the answer: %q %v %v", st, found, err)
	}
	if _, err := s.AnswerClientTool(ctx, testUser, id, json.RawMessage(`"sunny"`)); err != nil {
		t.Fatal(err)
	}
	if st, found, err := s.WaitStatus(ctx, testUser, r.SessionID, id); err != nil || !found || st != "submitted" {
		t.Fatalf("after the answer: %q %v %v", st, found, err)
	}
	if _, found, _ := s.WaitStatus(ctx, Principal{UserID: "other"}, r.SessionID, id); found {
		t.Fatal("another user sees the wait")
	}
	if _, found, _ := s.WaitStatus(ctx, testUser, r.SessionID, "client_tool_nope"); found {
		t.Fatal("an unknown wait is found")
	}
}
