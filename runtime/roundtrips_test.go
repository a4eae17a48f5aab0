package runtime

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harnest/harnest/store/redisstore"

	"github.com/redis/go-redis/v9"
)

// roundTrips counts what a client sends to Redis: one per command sent on
// its own, one per pipeline or transaction.
type roundTrips struct{ n atomic.Int64 }

func (c *roundTrips) DialHook(next redis.DialHook) redis.DialHook { return next }

func (c *roundTrips) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		c.n.Add(1)
		return next(ctx, cmd)
	}
}

func (c *roundTrips) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		c.n.Add(1)
		return next(ctx, cmds)
	}
}

var _ redis.Hook = (*roundTrips)(nil)

// TestRoundTripsPerTurn checks that a turn costs a fixed number of Redis
// round trips, whatever the number of events: begin (1) and commit (1),
// each one script; and a JSON turn that makes a new session one, its
// commit, which makes the session too.
func TestRoundTripsPerTurn(t *testing.T) {
	counter := &roundTrips{}
	st, err := redisstore.Open(context.Background(), redisstore.Options{Hooks: []redis.Hook{counter}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() }) // after the service's shutdown (cleanups run last first)
	deltas := 0
	agent := AgentFunc(func(ctx context.Context, turn *Turn, emit Emit) error {
		for i := 0; i < deltas; i++ {
			if err := emit(Event{Type: EventTextDelta, Delta: "x"}); err != nil {
				return err
			}
		}
		return nil
	})
	// No flush while the turn runs, whatever this machine's speed: the
	// count must not depend on time.
	s := New(Options{Store: st, Agent: agent, FlushDelay: time.Hour})
	// Warm up: a new connection's handshake is not the turn's cost.
	deltas = 1
	warm, err := s.StartResponse(context.Background(), Anonymous, ResponseRequest{Input: "hi"})
	if err != nil {
		t.Fatal(err)
	}
	<-warm.Done()
	sessionID := ""
	for _, n := range []int{1, 10, 200} {
		for _, newSession := range []bool{true, false} {
			for _, stream := range []bool{false, true} {
				deltas = n
				req := ResponseRequest{Input: "hi", Stream: stream}
				if !newSession {
					req.SessionID = sessionID
				}
				before := counter.n.Load()
				r, err := s.StartResponse(context.Background(), Anonymous, req)
				if err != nil {
					t.Fatal(err)
				}
				if stream {
					r.Each(func(Event) error { return nil })
				}
				if out := r.Outcome(); out.Err != nil {
					t.Fatal(out.Err)
				}
				<-r.Done()
				got := counter.n.Load() - before
				want := 2
				if newSession && !stream {
					want = 1
				}
				t.Logf("%d deltas, new session=%v, stream=%v: %d round trips", n, newSession, stream, got)
				if got != int64(want) {
					t.Errorf("%d deltas, new session=%v, stream=%v: %d round trips, want %d", n, newSession, stream, got, want)
				}
				sessionID = r.SessionID
				// What the turn wrote is all there, whichever way it began.
				if msgs, err := st.LastMessages(context.Background(), AnonymousUser, r.SessionID, 10); err != nil || len(msgs) < 2 {
					t.Errorf("%d deltas, new session=%v, stream=%v: transcript %d messages (%v)", n, newSession, stream, len(msgs), err)
				}
			}
		}
	}
}

// TestSlowTurnFlushesInBatches checks that a long turn writes its events for
// followers in batches (about one round trip per flush interval), not one
// per event.
func TestSlowTurnFlushesInBatches(t *testing.T) {
	counter := &roundTrips{}
	st, err := redisstore.Open(context.Background(), redisstore.Options{Hooks: []redis.Hook{counter}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() }) // after the service's shutdown (cleanups run last first)
	agent := AgentFunc(func(ctx context.Context, turn *Turn, emit Emit) error {
		for i := 0; i < 100; i++ { // 100 deltas over about 500 ms
			if err := emit(Event{Type: EventTextDelta, Delta: "x"}); err != nil {
				return err
			}
			time.Sleep(5 * time.Millisecond)
		}
		return nil
	})
	s := New(Options{Store: st, Agent: agent})
	before := counter.n.Load()
	r, err := s.StartResponse(context.Background(), Anonymous, ResponseRequest{Input: "hi"})
	if err != nil {
		t.Fatal(err)
	}
	<-r.Done()
	got := counter.n.Load() - before
	t.Logf("100 deltas over ~500 ms: %d round trips", got)
	if got >= 50 {
		t.Errorf("%d round trips for 100 events: events are not batched", got)
	}
	// All events are in the log, in order.
	events, err := st.EventsAfter(context.Background(), AnonymousUser, r.SessionID, r.ID, -1, 1000)
	if err != nil || len(events) != 102 {
		t.Fatalf("logged %d events (%v), want 102", len(events), err)
	}
	for i, e := range events {
		if e.Sequence != i {
			t.Fatalf("event %d has sequence %d", i, e.Sequence)
		}
	}
}

// steerableAgent is an AgentFunc that says it takes steers.
type steerableAgent struct{ AgentFunc }

func (steerableAgent) TakesSteers() bool { return true }

// TestRoundTripsOfASteerableTurn: an agent that takes steers pays nothing
// for it when nobody steers: its turn is begin and commit, the commit
// saying that no steer is left (store.Commit.SteersLeft).
func TestRoundTripsOfASteerableTurn(t *testing.T) {
	counter := &roundTrips{}
	st, err := redisstore.Open(context.Background(), redisstore.Options{Hooks: []redis.Hook{counter}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() }) // after the service's shutdown (cleanups run last first)
	agent := steerableAgent{AgentFunc(func(ctx context.Context, turn *Turn, emit Emit) error {
		return emit(Event{Type: EventTextDelta, Delta: "x"})
	})}
	s := New(Options{Store: st, Agent: agent, FlushDelay: time.Hour})
	if !s.TakesSteers() {
		t.Fatal("the agent does not take steers")
	}
	first, err := s.StartResponse(context.Background(), Anonymous, ResponseRequest{Input: "hi"})
	if err != nil {
		t.Fatal(err)
	}
	<-first.Done()
	for _, stream := range []bool{false, true} {
		before := counter.n.Load()
		r, err := s.StartResponse(context.Background(), Anonymous, ResponseRequest{Input: "hi", Stream: stream, SessionID: first.SessionID})
		if err != nil {
			t.Fatal(err)
		}
		if stream {
			r.Each(func(Event) error { return nil })
		}
		if out := r.Outcome(); out.Err != nil {
			t.Fatal(out.Err)
		}
		<-r.Done()
		if got := counter.n.Load() - before; got != 2 {
			t.Errorf("stream=%v: %d round trips, want 2 (begin, commit)", stream, got)
		}
	}
}
