package runtime

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harnest/harnest/store/memstore"
)

// A hand-off spends no attempt of the budget: with store.maxAttempts 1
// (the first run only), a turn handed off on shutdown still completes on
// the other replica, as the same attempt 1; a loss past the budget fails
// (TestClaimedRunFails).
func TestHandOffSpendsNoAttempt(t *testing.T) {
	st := memstore.New(memstore.Options{})
	defer st.Close()
	var runs atomic.Int64
	started := make(chan struct{})
	var lastAttempt atomic.Int64
	agent := AgentFunc(func(ctx context.Context, turn *Turn, emit Emit) error {
		lastAttempt.Store(int64(turn.Attempt))
		if runs.Add(1) == 1 {
			close(started)
			<-ctx.Done()
			return ctx.Err()
		}
		return emit(Event{Type: EventTextDelta, Delta: "echo: " + turn.Input})
	})
	start := func() *Service {
		s := New(Options{Store: st, Agent: agent, Liveness: time.Minute, SweepInterval: time.Minute,
			RerunOnReplicaLoss: true, MaxAttempts: 1, FlushDelay: time.Millisecond})
		if err := s.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Shutdown(context.Background()) })
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
			live, err := st.LiveReplicas(context.Background(), time.Now(), 0)
			if err == nil && slices.Contains(live, s.replica) {
				return s
			}
			if time.Now().After(deadline) {
				t.Fatalf("the replica is not live after 5 s: %v %v", live, err)
			}
		}
	}
	a := start()
	start()
	r, err := a.StartResponse(context.Background(), testUser, ResponseRequest{Input: "hi", Background: true})
	if err != nil {
		t.Fatal(err)
	}
	<-started
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := a.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	env := finalReceiptOf(t, st, testUser.UserID, r.SessionID, r.ID)
	if env.Status != StatusCompleted || env.OutputText != "echo: hi" || runs.Load() != 2 || lastAttempt.Load() != 1 {
		t.Fatalf("receipt %s %q (%+v) after %d runs, the last as attempt %d: want completed by the second run, attempt 1",
			env.Status, env.OutputText, env.Error, runs.Load(), lastAttempt.Load())
	}
}
