package runtime

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/harnest/harnest/store"
	"github.com/harnest/harnest/store/memstore"
	"github.com/harnest/harnest/store/redisstore"

	"github.com/redis/go-redis/v9"
)

// TestResumePointRoundTrips checks what resume points cost the store: one
// round trip each, which also logs the events emitted before it (nothing
// is left for a flush); nothing for a turn that records none (a one-step
// turn), nor for a turn that cannot run again (an agent that is not
// rerun), whose Journal is nil. A turn not in the background records too:
// it runs again once it waits for an answer (waits_durable.go).
func TestResumePointRoundTrips(t *testing.T) {
	counter := &roundTrips{}
	st, err := redisstore.Open(context.Background(), redisstore.Options{Hooks: []redis.Hook{counter}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() }) // after the service's shutdown (cleanups run last first)
	points := 0
	var sawJournal bool
	agent := AgentFunc(func(ctx context.Context, turn *Turn, emit Emit) error {
		sawJournal = turn.Journal != nil
		for i := 0; i < points; i++ {
			for range 3 {
				if err := emit(Event{Type: EventTextDelta, Delta: "x"}); err != nil {
					return err
				}
			}
			if err := turn.Journal.Record(ctx, "step/"+string(rune('a'+i)), []byte(`{}`)); err != nil {
				return err
			}
		}
		return emit(Event{Type: EventTextDelta, Delta: "done"})
	})
	for _, rerun := range []bool{true, false} {
		// No flush while the turn runs: the count must not depend on time.
		s := New(Options{Store: st, Agent: agent, FlushDelay: time.Hour, RerunOnReplicaLoss: rerun})
		warm, err := s.StartResponse(context.Background(), Anonymous, ResponseRequest{Input: "hi"})
		if err != nil {
			t.Fatal(err)
		}
		<-warm.Done()
		for _, n := range []int{0, 1, 3} {
			for _, background := range []bool{true, false} {
				points = n
				before := counter.n.Load()
				r, err := s.StartResponse(context.Background(), Anonymous, ResponseRequest{Input: "hi", SessionID: warm.SessionID, Background: background})
				if err != nil {
					t.Fatal(err)
				}
				<-r.Done()
				got := counter.n.Load() - before
				want := int64(2) // begin and commit
				if rerun {
					want += int64(n)
				}
				t.Logf("%d points, rerun=%v, background=%v: %d round trips", n, rerun, background, got)
				if got != want || sawJournal != rerun {
					t.Errorf("%d points, rerun=%v, background=%v: %d round trips (journal %v), want %d", n, rerun, background, got, sawJournal, want)
				}
				j, err := st.Journal(context.Background(), AnonymousUser, r.SessionID, r.ID)
				wantSeq := -1
				if rerun && n > 0 {
					wantSeq = 3 * n // response.created, then 3 deltas a point
				}
				if err != nil || j.Sequence != wantSeq || (wantSeq >= 0 && len(j.Points) != n) {
					t.Errorf("%d points, rerun=%v, background=%v: journal %+v %v, want sequence %d", n, rerun, background, j, err, wantSeq)
				}
			}
		}
		_ = s.Shutdown(context.Background())
	}
}

// A resume point of an attempt whose run another replica claimed is
// refused: Record fails, the attempt is cancelled, and nothing it emitted
// since is logged.
func TestFencedResumePointStopsTheAttempt(t *testing.T) {
	st := memstore.New(memstore.Options{})
	t.Cleanup(func() { _ = st.Close() }) // after the service's shutdown (cleanups run last first)
	recorded := make(chan error, 1)
	claimed := make(chan struct{})
	agent := AgentFunc(func(ctx context.Context, turn *Turn, emit Emit) error {
		if err := emit(Event{Type: EventTextDelta, Delta: "before"}); err != nil {
			return err
		}
		<-claimed
		err := turn.Journal.Record(ctx, "step", []byte(`{}`))
		recorded <- err
		if err != nil {
			return err
		}
		return emit(Event{Type: EventTextDelta, Delta: "after"})
	})
	s := New(Options{Store: st, Agent: agent, FlushDelay: time.Hour, RerunOnReplicaLoss: true})
	defer s.Shutdown(context.Background())
	r, err := s.StartResponse(context.Background(), Anonymous, ResponseRequest{Input: "hi", Background: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.ClaimRun(context.Background(), store.Claim{User: AnonymousUser, Session: r.SessionID, ResponseID: r.ID,
		Replica: s.replica, Epoch: 1, Claimer: "other", Lease: time.Minute}); err != nil {
		t.Fatal(err)
	}
	close(claimed)
	if err := <-recorded; !errors.Is(err, errClaimed) {
		t.Fatalf("Record after the claim: %v, want errClaimed", err)
	}
	<-r.Done()
	if j, _ := st.Journal(context.Background(), AnonymousUser, r.SessionID, r.ID); len(j.Points) != 0 {
		t.Fatalf("a fenced point was kept: %+v", j)
	}
	events, _ := st.EventsAfter(context.Background(), AnonymousUser, r.SessionID, r.ID, -1, 0)
	for _, e := range events {
		if e.Type == EventTextDelta {
			t.Fatalf("the fenced attempt logged %s", e.JSON)
		}
	}
}
