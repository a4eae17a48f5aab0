package runtime

import (
	"context"
	"encoding/json"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/store"
)

// parkedOrEcho asks for an approval on the input "v2" (the lost run's),
// and echoes any other input.
func parkedOrEcho(runs *atomic.Int64) Agent {
	return AgentFunc(func(ctx context.Context, turn *Turn, emit Emit) error {
		runs.Add(1)
		if turn.Input == "v2" {
			if err := turn.RequestApproval(ctx, ApprovalRequest{Action: "deploy", Message: "Deploy?"}); err != nil {
				return err
			}
		}
		return emit(Event{Type: EventTextDelta, Delta: "echo: " + turn.Input})
	})
}

// parkedService parks the suspended run of a lost replica in a store of
// case c, and returns a replica of that store, started after it.
func parkedService(t *testing.T, c testutil.StoreCase, runs *atomic.Int64) (*Service, store.Store, string) {
	t.Helper()
	st := openStore(t, c, testutil.Prefix(t))
	id := suspendedLostRun(t, st, time.Now().Add(time.Hour))
	s := claimingService(t, st, parkedOrEcho(runs), true, 0)
	parked(t, st)
	return s, st, id
}

// transcriptLines is the lost session's transcript as role:content lines,
// " (interrupted)" after an interrupted message.
func transcriptLines(t *testing.T, st store.Store) []string {
	t.Helper()
	msgs, err := st.Messages(context.Background(), "u", "sess_lost", 0, 20)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, raw := range msgs {
		var m struct {
			Role     string `json:"role"`
			Content  string `json:"content"`
			Metadata struct {
				Interrupted bool `json:"interrupted"`
			} `json:"metadata"`
		}
		if err := json.Unmarshal(raw.JSON, &m); err != nil {
			t.Fatalf("message %s: %v", raw.JSON, err)
		}
		line := m.Role + ":" + m.Content
		if m.Metadata.Interrupted {
			line += " (interrupted)"
		}
		out = append(out, line)
	}
	return out
}

// A waiting turn held by no replica (parked after its replica died) is
// cancelled by any replica: its receipt becomes cancelled at once (not
// requires_action after a lease), its approval can no longer be given,
// and the session is free for the next message.
func TestCancelParkedWait(t *testing.T) {
	for _, c := range testutil.Stores(t) {
		t.Run(c.Name, func(t *testing.T) {
			var runs atomic.Int64
			s, st, id := parkedService(t, c, &runs)
			ctx := context.Background()
			u := Principal{UserID: "u"}
			body, err := s.CancelResponse(ctx, u, "sess_lost", "resp_lost")
			if err != nil || statusOf(body) != StatusCancelled {
				t.Fatalf("cancel: %s %v", body, err)
			}
			if w, _, _ := st.GetWait(ctx, "u", id); w.Status != store.WaitCanceled {
				t.Fatalf("wait %+v, want cancelled", w)
			}
			if _, err := s.Decide(ctx, u, id, true); err == nil {
				t.Fatal("the approval of a cancelled response was taken")
			}
			if active, _ := st.ActiveResponse(ctx, "u", "sess_lost"); active != "" {
				t.Fatalf("the session is still held by %s", active)
			}
			r, err := s.StartResponse(ctx, u, ResponseRequest{Input: "next", SessionID: "sess_lost"})
			if err != nil {
				t.Fatal(err)
			}
			if out := r.Outcome(); out.Err != nil || out.Envelope.OutputText != "echo: next" {
				t.Fatalf("next %+v", out)
			}
			if runs.Load() != 1 {
				t.Fatalf("agent runs %d, want 1 (the parked turn never runs again)", runs.Load())
			}
		})
	}
}

// interrupt and rollback sent to a session whose turn is parked end that
// turn and run the new message: the transcripts afterwards, exactly.
func TestInterruptAndRollbackOfAParkedWait(t *testing.T) {
	for _, c := range testutil.Stores(t) {
		for _, strategy := range []string{BusyInterrupt, BusyRollback} {
			t.Run(c.Name+"/"+strategy, func(t *testing.T) {
				var runs atomic.Int64
				s, st, _ := parkedService(t, c, &runs)
				ctx := context.Background()
				r, err := s.StartResponse(ctx, Principal{UserID: "u"}, ResponseRequest{Input: "next", SessionID: "sess_lost", OnBusy: strategy, Background: true})
				if err != nil {
					t.Fatal(err)
				}
				lost := finalReceipt(t, st)
				wantCode := errInterrupted.Code
				if strategy == BusyRollback {
					wantCode = errRolledBack.Code
				}
				if lost.Status != StatusCancelled || lost.Error == nil || lost.Error.Code != wantCode {
					t.Fatalf("the parked turn's receipt %+v", lost)
				}
				if env := finalReceiptOf(t, st, "u", "sess_lost", r.ID); env.Status != StatusCompleted || env.OutputText != "echo: next" {
					t.Fatalf("next %+v", env)
				}
				want := []string{"user:next", "assistant:echo: next"}
				if strategy == BusyInterrupt {
					want = append([]string{"user:v2", "assistant: (interrupted)"}, want...)
				}
				if got := transcriptLines(t, st); !slices.Equal(got, want) {
					t.Fatalf("transcript %q, want %q", got, want)
				}
			})
		}
	}
}
