package runtime

import (
	"context"
	"errors"
	"testing"
	"time"
)

// A caller that goes away before its answer cancels the response, whether
// it waits for JSON (in Outcome) or reads a stream; one that ran in the
// background does not, and one that got its answer has no more say.
func TestCallerGoneCancelsTheResponse(t *testing.T) {
	for _, tc := range []struct {
		name               string
		stream, background bool
		cancelled          bool
	}{
		{name: "json", cancelled: true},
		{name: "stream", stream: true, cancelled: true},
		{name: "background", background: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			started, release := make(chan struct{}), make(chan struct{})
			agent := AgentFunc(func(ctx context.Context, turn *Turn, emit Emit) error {
				close(started)
				select {
				case <-ctx.Done():
					return ctx.Err()
				case <-release:
					return emit(Event{Type: EventTextDelta, Delta: "done"})
				}
			})
			s := newTestService(t, agent, nil)
			ctx, leave := context.WithCancel(context.Background())
			r, err := s.StartResponse(ctx, testUser, ResponseRequest{Input: "x", Stream: tc.stream, Background: tc.background})
			if err != nil {
				t.Fatal(err)
			}
			outcome := make(chan Outcome, 1)
			go func() {
				if tc.stream {
					outcome <- r.Each(func(Event) error { return nil })
				} else {
					outcome <- r.Outcome()
				}
			}()
			<-started
			leave()
			if !tc.cancelled {
				time.Sleep(50 * time.Millisecond) // a cancellation would have come by now
				close(release)
			}
			var out Outcome
			select {
			case out = <-outcome:
			case <-time.After(10 * time.Second):
				t.Fatal("no outcome")
			}
			<-r.Done()
			env := receipt(t, s, r)
			if tc.cancelled {
				if out.Err == nil || !errors.Is(out.Err, ErrCancelled) || env.Status != StatusCancelled {
					t.Fatalf("outcome %+v, receipt %+v: want cancelled", out.Err, env)
				}
				return
			}
			if out.Err != nil || env.Status != StatusCompleted || env.OutputText != "done" {
				t.Fatalf("outcome %+v, receipt %+v: want completed", out.Err, env)
			}
		})
	}
	t.Run("suspended, then gone", func(t *testing.T) {
		// Answered at a suspension (requires_action), the caller leaves
		// before it reads the answer: the suspended response lives on.
		s := newTestService(t, AgentFunc(func(ctx context.Context, turn *Turn, emit Emit) error {
			if err := turn.RequestApproval(ctx, ApprovalRequest{Action: "act"}); err != nil {
				return err
			}
			return emit(Event{Type: EventTextDelta, Delta: "done"})
		}), nil)
		ctx, leave := context.WithCancel(context.Background())
		r, err := s.StartResponse(ctx, testUser, ResponseRequest{Input: "x"})
		if err != nil {
			t.Fatal(err)
		}
		<-r.Boundary()
		leave()
		if out := r.Outcome(); out.Err != nil || out.Envelope.Status != StatusRequiresAction {
			t.Fatalf("outcome %+v %+v", out.Err, out.Envelope)
		}
		select {
		case <-r.Done():
			t.Fatalf("the suspended response ended: receipt %+v", receipt(t, s, r))
		case <-time.After(50 * time.Millisecond):
		}
		if env := receipt(t, s, r); env.Status != StatusRequiresAction {
			t.Fatalf("receipt %+v", env)
		}
		r.Cancel()
		<-r.Done()
	})
	t.Run("answered", func(t *testing.T) {
		s := newTestService(t, AgentFunc(func(ctx context.Context, turn *Turn, emit Emit) error {
			return emit(Event{Type: EventTextDelta, Delta: "done"})
		}), nil)
		ctx, leave := context.WithCancel(context.Background())
		r, err := s.StartResponse(ctx, testUser, ResponseRequest{Input: "x"})
		if err != nil {
			t.Fatal(err)
		}
		first := r.Outcome()
		leave()
		if again := r.Outcome(); first.Err != nil || again.Err != nil || string(again.Body) != string(first.Body) {
			t.Fatalf("outcomes %+v then %+v", first.Err, again.Err)
		}
		<-r.Done()
		if env := receipt(t, s, r); env.Status != StatusCompleted {
			t.Fatalf("receipt %+v", env)
		}
	})
}
