package runtime

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/harnest/harnest/internal/testutil"
)

// A JSON turn that makes a new session is in the store from its first
// write, not before: its commit makes the session when the turn is short;
// a flush makes it (holding its lease, so a second turn is refused as busy
// and followers find the events) when the turn runs on; a suspension makes
// it held until the answer; and every way ends with the whole turn stored.
func TestNewSessionMadeByItsFirstWrite(t *testing.T) {
	for _, c := range testutil.Stores(t) {
		t.Run(c.Name, func(t *testing.T) {
			st := openStore(t, c, testutil.Prefix(t))
			emitted, release := make(chan struct{}), make(chan struct{})
			agent := AgentFunc(func(ctx context.Context, turn *Turn, emit Emit) error {
				switch turn.Input {
				case "slow":
					if err := emit(Event{Type: EventTextDelta, Delta: "first "}); err != nil {
						return err
					}
					close(emitted)
					<-release
				case "approve":
					if err := turn.RequestApproval(ctx, ApprovalRequest{Action: "act", Message: "may I?"}); err != nil {
						return err
					}
				}
				return emit(Event{Type: EventTextDelta, Delta: "done"})
			})
			s := New(Options{Store: st, Agent: agent, FlushDelay: 10 * time.Millisecond})
			ctx := context.Background()
			if err := s.Start(ctx); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = s.Shutdown(context.Background()) })
			stored := func(r *Response, what string) {
				t.Helper()
				if got := receipt(t, s, r); got.Status != StatusCompleted || got.OutputText == "" {
					t.Fatalf("%s: receipt %+v, want completed with its text", what, got)
				}
				if msgs, err := st.Messages(ctx, testUser.UserID, r.SessionID, 0, 10); err != nil || len(msgs) != 2 {
					t.Fatalf("%s: transcript %d messages (%v), want 2", what, len(msgs), err)
				}
				if list, err := s.ListSessions(ctx, testUser, "", 100); err != nil || !listed(list.Sessions, r.SessionID) {
					t.Fatalf("%s: session %s not listed (%v)", what, r.SessionID, err)
				}
			}

			short, err := s.StartResponse(ctx, testUser, ResponseRequest{Input: "short"})
			if err != nil {
				t.Fatal(err)
			}
			waitDone(t, short)
			stored(short, "short turn")

			slow, err := s.StartResponse(ctx, testUser, ResponseRequest{Input: "slow"})
			if err != nil {
				t.Fatal(err)
			}
			<-emitted
			for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
				events, _, err := s.LoggedEvents(ctx, testUser, slow.SessionID, slow.ID, -1, 10)
				if err == nil && len(events) >= 2 {
					break // response.created and the delta, flushed
				}
				if time.Now().After(deadline) {
					t.Fatalf("the slow turn's events never reached the store: %v %v", events, err)
				}
			}
			if got := receipt(t, s, slow); got.Status != StatusInProgress {
				t.Fatalf("the slow turn's receipt while it runs: %s, want in_progress", got.Status)
			}
			_, err = s.StartResponse(ctx, testUser, ResponseRequest{Input: "short", SessionID: slow.SessionID})
			if e := (*Error)(nil); !errors.As(err, &e) || e.Code != errSessionBusy.Code {
				t.Fatalf("a second turn while the slow one runs: %v, want %s", err, errSessionBusy.Code)
			}
			close(release)
			waitDone(t, slow)
			stored(slow, "slow turn")

			asks, err := s.StartResponse(ctx, testUser, ResponseRequest{Input: "approve"})
			if err != nil {
				t.Fatal(err)
			}
			out := asks.Outcome()
			if out.Err != nil || out.Envelope.RequiredAction == nil {
				t.Fatalf("the approval turn: %+v, want requires_action", out)
			}
			_, err = s.StartResponse(ctx, testUser, ResponseRequest{Input: "short", SessionID: asks.SessionID})
			if e := (*Error)(nil); !errors.As(err, &e) || e.Code != errSessionBusy.Code {
				t.Fatalf("a second turn while the approval waits: %v, want %s", err, errSessionBusy.Code)
			}
			if _, err := s.AnswerApproval(ctx, testUser, out.Envelope.RequiredAction.ID, true); err != nil {
				t.Fatal(err)
			}
			waitDone(t, asks)
			stored(asks, "approved turn")
		})
	}
}

// listed reports whether the sessions include id.
func listed(sessions []Session, id string) bool {
	for _, s := range sessions {
		if s.ID == id {
			return true
		}
	}
	return false
}
