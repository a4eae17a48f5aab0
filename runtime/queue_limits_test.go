package runtime

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/store"
)

// gatedAgent echoes its input; an input starting with "block" first waits
// until gate(input) is closed (or its turn is cancelled). started receives
// each input as it runs.
func gatedAgent(started chan<- string, gates *sync.Map) func(store.Store) Agent {
	return func(store.Store) Agent {
		return AgentFunc(func(ctx context.Context, turn *Turn, emit Emit) error {
			started <- turn.Input
			if strings.HasPrefix(turn.Input, "block") {
				gate, _ := gates.LoadOrStore(turn.Input, make(chan struct{}))
				select {
				case <-ctx.Done():
					return ctx.Err()
				case <-gate.(chan struct{}):
				}
			}
			return emit(Event{Type: EventTextDelta, Delta: "echo: " + turn.Input})
		})
	}
}

// limitedReplica is one replica of gatedAgent on a store of case c, with
// the strategy enqueue and limits.
func limitedReplica(t *testing.T, c testutil.StoreCase, limits UserLimits, started chan string, gates *sync.Map) (*Service, store.Store) {
	t.Helper()
	st := openStore(t, c, testutil.Prefix(t))
	s := New(Options{Store: st, Agent: gatedAgent(started, gates)(st), OnBusy: BusyEnqueue, Limits: limits, FlushDelay: time.Millisecond})
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = s.Shutdown(ctx)
	})
	return s, st
}

func isRateLimited(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == CodeRateLimited
}

// A queued response counts against its user's turns per day: once the
// day's turns are used by a running and a queued response, a third
// message is refused (429 rate_limited), whether it would queue or not.
func TestQueuedResponseCountsTheDaysTurn(t *testing.T) {
	for _, c := range testutil.Stores(t) {
		t.Run(c.Name, func(t *testing.T) {
			started, gates := make(chan string, 8), &sync.Map{}
			s, _ := limitedReplica(t, c, UserLimits{TurnsPerDay: 2}, started, gates)
			ctx := context.Background()
			first, err := s.StartResponse(ctx, testUser, ResponseRequest{Input: "block", Background: true})
			if err != nil {
				t.Fatal(err)
			}
			<-started
			if _, err := s.StartResponse(ctx, testUser, ResponseRequest{Input: "queued", SessionID: first.SessionID, Background: true}); err != nil {
				t.Fatal(err)
			}
			_, err = s.StartResponse(ctx, testUser, ResponseRequest{Input: "third", SessionID: first.SessionID, Background: true})
			if !isRateLimited(err) {
				t.Fatalf("a third turn of the day: %v, want rate_limited", err)
			}
			gate, _ := gates.LoadOrStore("block", make(chan struct{}))
			close(gate.(chan struct{}))
		})
	}
}

// A queued response that starts takes a slot among its user's responses
// in progress: with a limit of 2, a session's running turn, a message
// queued behind it and another session's running turn; once the first
// ends, the queued one runs and holds the slot, so a turn on a third
// session is refused rather than running a third response at once.
func TestQueuedResponseTakesASlotWhenItStarts(t *testing.T) {
	for _, c := range testutil.Stores(t) {
		t.Run(c.Name, func(t *testing.T) {
			started, gates := make(chan string, 8), &sync.Map{}
			s, st := limitedReplica(t, c, UserLimits{ConcurrentResponses: 2}, started, gates)
			ctx := context.Background()
			a, err := s.StartResponse(ctx, testUser, ResponseRequest{Input: "block-a", Background: true})
			if err != nil {
				t.Fatal(err)
			}
			<-started
			x, err := s.StartResponse(ctx, testUser, ResponseRequest{Input: "block-x", SessionID: a.SessionID, Background: true})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.StartResponse(ctx, testUser, ResponseRequest{Input: "block-b", Background: true}); err != nil {
				t.Fatal(err)
			}
			<-started
			gate, _ := gates.LoadOrStore("block-a", make(chan struct{}))
			close(gate.(chan struct{}))
			if got := <-started; got != "block-x" {
				t.Fatalf("started %q, want the queued block-x", got)
			}
			_, err = s.StartResponse(ctx, testUser, ResponseRequest{Input: "c", Background: true})
			if !isRateLimited(err) {
				t.Fatalf("a third response in progress: %v, want rate_limited", err)
			}
			for _, in := range []string{"block-x", "block-b"} {
				gate, _ := gates.LoadOrStore(in, make(chan struct{}))
				close(gate.(chan struct{}))
			}
			if env := finalReceiptOf(t, st, testUser.UserID, a.SessionID, x.ID); env.Status != StatusCompleted {
				t.Fatalf("x %+v", env)
			}
		})
	}
}
