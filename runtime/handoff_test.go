package runtime

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harnest/harnest/store"
	"github.com/harnest/harnest/store/memstore"
)

// handoffAgent blocks its first run until it is stopped and answers at
// once from the second on (a hand-off goes on as the same attempt: it
// counts runs).
func handoffAgent(attempts *atomic.Int64, started chan<- struct{}) Agent {
	return AgentFunc(func(ctx context.Context, turn *Turn, emit Emit) error {
		if attempts.Add(1) == 1 {
			if err := emit(Event{Type: EventTextDelta, Delta: "half"}); err != nil {
				return err
			}
			close(started)
			<-ctx.Done()
			return ctx.Err()
		}
		return emit(Event{Type: EventTextDelta, Delta: "echo: " + turn.Input})
	})
}

// handoffService starts a replica on st whose sweeper would claim nothing
// for a minute: what it claims at once came by a hand-off's message.
func handoffService(t *testing.T, st store.Store, agent Agent) *Service {
	t.Helper()
	s := New(Options{Store: st, Agent: agent, Liveness: time.Minute, SweepInterval: time.Minute,
		RerunOnReplicaLoss: true, FlushDelay: time.Millisecond})
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Shutdown(context.Background()) })
	// Its first heartbeat is on its own goroutine: wait until it is live.
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

// A replica that shuts down hands its running background turn to the
// other live replica, which claims it at once (not at its next sweep, nor
// after the liveness TTL) and runs it again: the receipt is completed by
// attempt 2, never cancelled.
func TestShutdownHandsTurnOff(t *testing.T) {
	st := memstore.New(memstore.Options{})
	t.Cleanup(func() { _ = st.Close() }) // after the service's shutdown (cleanups run last first)
	var attempts atomic.Int64
	started := make(chan struct{})
	agent := handoffAgent(&attempts, started)
	a := handoffService(t, st, agent)
	handoffService(t, st, agent) // the replica that takes the turn over
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
	if env.Status != StatusCompleted || env.OutputText != "echo: hi" || attempts.Load() != 2 {
		t.Fatalf("receipt %+v after %d attempts, want completed by the second", env, attempts.Load())
	}
}

// Alone (no other live replica), a replica that shuts down hands nothing
// off: its running turn is cancelled when the grace ends, as before.
func TestShutdownAloneCancels(t *testing.T) {
	st := memstore.New(memstore.Options{})
	t.Cleanup(func() { _ = st.Close() }) // after the service's shutdown (cleanups run last first)
	var attempts atomic.Int64
	started := make(chan struct{})
	a := handoffService(t, st, handoffAgent(&attempts, started))
	r, err := a.StartResponse(context.Background(), testUser, ResponseRequest{Input: "hi", Background: true})
	if err != nil {
		t.Fatal(err)
	}
	<-started
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_ = a.Shutdown(ctx)
	b, _, err := st.Receipt(context.Background(), testUser.UserID, r.SessionID, r.ID)
	env, _ := envelopeOf(b)
	if err != nil || env.Status != StatusCancelled || attempts.Load() != 1 {
		t.Fatalf("receipt %s (%v) after %d attempts, want cancelled", b, err, attempts.Load())
	}
}

// A replica that drains (about to shut down itself) does not take a
// handed-off turn by the message: it would only hand it off again.
func TestDrainingReplicaTakesNoHandOff(t *testing.T) {
	st := memstore.New(memstore.Options{})
	t.Cleanup(func() { _ = st.Close() }) // after the service's shutdown (cleanups run last first)
	var attempts atomic.Int64
	started := make(chan struct{})
	agent := handoffAgent(&attempts, started)
	a := handoffService(t, st, agent)
	handoffService(t, st, agent).Drain()
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
	time.Sleep(300 * time.Millisecond)
	b, _, err := st.Receipt(context.Background(), testUser.UserID, r.SessionID, r.ID)
	if env, _ := envelopeOf(b); err != nil || env.Status != StatusInProgress || attempts.Load() != 1 {
		t.Fatalf("receipt %s (%v) after %d attempts: want it left in progress for a replica that stays", b, err, attempts.Load())
	}
}
