package runtime

import (
	"context"
	"encoding/json"
	"time"

	"github.com/harnest/harnest/store"
)

// sweep periodically takes over the runs of lost replicas: those whose
// liveness record lapsed (claim.go), the parked ones whose wait was answered
// or expired (waits_durable.go), and those whose lease lapsed with nobody
// renewing it. Each is claimed and run again or failed (claim.go); one whose
// session another response holds is failed here. Any replica may do it; the
// store makes sure a run has one holder and a receipt changes once.
func (s *Service) sweep(ctx context.Context) {
	defer close(s.sweeperDone)
	t := time.NewTicker(s.sweepEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		for id, seen := range s.lapsedSeen { // forget runs renewed or swept since
			if time.Since(seen) > 10*s.lease {
				delete(s.lapsedSeen, id)
			}
		}
		s.sweepLostReplicas(ctx)
		s.sweepParkedWaits(ctx)
		s.sweepQueued(ctx) // queue.go
		// A run due by its lease is claimed (claim.go) when it can be, and
		// failed here when another response holds its session.
		due := func(run store.Lapsed) bool { return s.lapsedDue(run) && !s.takeOver(ctx, run) }
		swept, err := s.store.SweepLapsed(ctx, time.Now(), 100, due, s.lapsedReceipt)
		if err != nil && ctx.Err() == nil {
			s.log.Warn("sweeping lapsed runs failed", "err", err)
		}
		for _, run := range swept {
			s.log.Warn("failed a response whose replica stopped renewing it", "responseId", run.ResponseID)
			s.sweptOne(run, replicaLostReceipt(run, 0))
		}
	}
}

// sweptOne sends the final receipt of a run this sweeper failed to its
// webhook (its replica can no longer send it: whoever writes the final
// receipt does) and tells OnSwept.
func (s *Service) sweptOne(run store.Lapsed, receipt []byte) {
	if w := storedWebhook(run.Webhook); w != nil {
		s.enqueueWebhook(run.User, run.ResponseID, w, receipt)
	}
	s.mu.Lock()
	told := s.onSwept
	s.mu.Unlock()
	for _, fn := range told {
		fn(run.User, run.Session, run.ResponseID)
	}
}

// lapsedDue decides whether a run whose lease lapsed is taken over now. A run
// of this replica is alive (it is renewed as soon as the store answers). A
// run of another replica is taken over only when it is still lapsed a while
// after this sweeper first saw it lapsed: a replica that lived through a
// store outage longer than its lease renews its runs within a third of the
// lease once the store is back, and must not find them failed.
func (s *Service) lapsedDue(run store.Lapsed) bool {
	if s.local(run.ResponseID) != nil || run.Replica == store.QueuedReplica { // a queued run holds nothing (queue.go)
		return false
	}
	now := time.Now()
	seen, ok := s.lapsedSeen[run.ResponseID]
	if !ok {
		s.lapsedSeen[run.ResponseID] = now
		return false
	}
	if now.Sub(seen) < s.lease/2 {
		return false
	}
	delete(s.lapsedSeen, run.ResponseID)
	return true
}

// lapsedReceipt is the failed receipt that replaces a receipt that was not
// final; nil keeps a final one.
func (s *Service) lapsedReceipt(run store.Lapsed, receipt []byte) []byte {
	if isTerminal(receipt) {
		return nil
	}
	return replicaLostReceipt(run, 0)
}

// replicaLostReceipt is the failed receipt of a run whose replica was lost
// after the given attempts (0: not told).
func replicaLostReceipt(run store.Lapsed, attempts int) []byte {
	env := Envelope{ID: run.ResponseID, SessionID: run.Session, EnvelopeBody: EnvelopeBody{
		Status: StatusFailed, Output: []OutputItem{}, Metadata: json.RawMessage("{}"),
		Error: &EnvelopeError{Code: CodeReplicaLost, Attempts: attempts},
	}}
	b, _ := env.encode()
	return b
}

// OnSwept registers fn, told (on the sweeper's goroutine) of every response
// this replica's sweeper failed after its failed receipt is recorded: a
// response whose replica died, which that replica can no longer report
// (A2A push notifications tell the task's subscribers). fn must not
// block for long.
func (s *Service) OnSwept(fn func(user, session, responseID string)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.onSwept = append(s.onSwept, fn)
}
