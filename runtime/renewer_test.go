package runtime

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/store"
)

// countingRenewals counts the lease renewals a store is asked for.
type countingRenewals struct {
	store.Store
	renewals atomic.Int64
}

func (c *countingRenewals) RenewLease(ctx context.Context, user, session, responseID, replica string, epoch int, ttl time.Duration) (bool, error) {
	c.renewals.Add(1)
	return c.Store.RenewLease(ctx, user, session, responseID, replica, epoch, ttl)
}

// A response that runs for several leases keeps its session: the service's
// renewer extends the hold, a second turn on the session is refused as
// busy all along, and a sweeper sharing the store never takes the run for
// a dead replica's. A turn shorter than a third of the lease is never
// renewed, and once nothing runs the renewer's goroutine ends.
func TestRenewerHoldsLongRunsOnly(t *testing.T) {
	for _, c := range testutil.Stores(t) {
		t.Run(c.Name, func(t *testing.T) {
			const lease = 300 * time.Millisecond
			st := &countingRenewals{Store: openStore(t, c, testutil.Prefix(t))}
			release := make(chan struct{})
			agent := AgentFunc(func(ctx context.Context, turn *Turn, emit Emit) error {
				if turn.Input == "long" {
					select {
					case <-release:
					case <-ctx.Done():
						return ctx.Err()
					}
				}
				return emit(Event{Type: EventTextDelta, Delta: "done"})
			})
			s := New(Options{Store: st, Agent: agent, Lease: lease, SweepInterval: 20 * time.Millisecond})
			if err := s.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = s.Shutdown(context.Background()) })
			ctx := context.Background()

			short, err := s.StartResponse(ctx, testUser, ResponseRequest{Input: "short"})
			if err != nil {
				t.Fatal(err)
			}
			waitDone(t, short)
			if n := st.renewals.Load(); n != 0 {
				t.Fatalf("a short turn was renewed %d times, want 0", n)
			}

			long, err := s.StartResponse(ctx, testUser, ResponseRequest{Input: "long", SessionID: short.SessionID})
			if err != nil {
				t.Fatal(err)
			}
			for deadline := time.Now().Add(4 * lease); time.Now().Before(deadline); time.Sleep(lease / 4) {
				_, err := s.StartResponse(ctx, testUser, ResponseRequest{Input: "short", SessionID: short.SessionID})
				var e *Error
				if !errors.As(err, &e) || e.Code != errSessionBusy.Code {
					t.Fatalf("a second turn while the long one runs: %v, want %s", err, errSessionBusy.Code)
				}
			}
			close(release)
			out := waitDone(t, long)
			if out.Err != nil || receipt(t, s, long).Status != StatusCompleted {
				t.Fatalf("the long turn: %+v %s, want completed", out.Err, receipt(t, s, long).Status)
			}
			if n := st.renewals.Load(); n < 4 {
				t.Fatalf("%d renewals over four leases, want at least 4", n)
			}
			for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(lease / 6) {
				s.renewal.mu.Lock()
				running := s.renewal.running
				s.renewal.mu.Unlock()
				if !running {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("the renewer still runs with nothing to renew")
				}
			}
		})
	}
}
