package runtime

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harnest/harnest/store"
	"github.com/harnest/harnest/store/memstore"
)

// A hand-off spends no attempt of the budget: with store.maxAttempts 1
// (the first run only), a turn handed off on shutdown still completes on
// the other replica, as the same attempt 1; a loss past the budget fails
// (TestClaimedRunFails).
func TestHandOffSpendsNoAttempt(t *testing.T) {
	st := memstore.New(memstore.Options{})
	t.Cleanup(func() { _ = st.Close() }) // after the service's shutdown (cleanups run last first)
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

// silentHandOff is a store whose replica's control messages are lost: the
// others learn of its hand-off only from its lapsed liveness record.
type silentHandOff struct{ store.Store }

func (silentHandOff) PublishControl(ctx context.Context, payload string) error {
	return errors.New("the control message was lost")
}

// A hand-off that the other replica learns of by its sweep (the message
// was lost) spends no attempt either: the run was marked handed off, so
// the sweep's claim goes on as the same attempt; with store.maxAttempts 1
// the turn completes instead of failing replica_lost.
func TestSweptHandOffSpendsNoAttempt(t *testing.T) {
	st := memstore.New(memstore.Options{})
	t.Cleanup(func() { _ = st.Close() }) // after the service's shutdown (cleanups run last first)
	var runs atomic.Int64
	started := make(chan struct{})
	agent := AgentFunc(func(ctx context.Context, turn *Turn, emit Emit) error {
		if runs.Add(1) == 1 {
			close(started)
			<-ctx.Done()
			return ctx.Err()
		}
		return emit(Event{Type: EventTextDelta, Delta: "echo: " + turn.Input})
	})
	start := func(s store.Store) *Service {
		svc := New(Options{Store: s, Agent: agent, Liveness: 300 * time.Millisecond, SweepInterval: 50 * time.Millisecond,
			RerunOnReplicaLoss: true, MaxAttempts: 1, FlushDelay: time.Millisecond})
		if err := svc.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = svc.Shutdown(context.Background()) })
		return svc
	}
	a := start(silentHandOff{st})
	start(st)
	time.Sleep(400 * time.Millisecond) // both replicas are live and trust their liveness
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
	if env.Status != StatusCompleted || env.OutputText != "echo: hi" || runs.Load() != 2 {
		t.Fatalf("receipt %s %q (%+v) after %d runs: want completed by the second run", env.Status, env.OutputText, env.Error, runs.Load())
	}
}
