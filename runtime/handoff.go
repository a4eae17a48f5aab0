package runtime

import (
	"context"
	"errors"
	"time"
)

// Handing off the running turns of a replica that shuts down (a deploy).
// Instead of cancelling its resumable turns when its grace ends, a replica
// told to stop hands them to the other replicas at once: it marks its
// liveness record lapsed, stops its own attempts without recording
// anything (a write that comes late is fenced by the claim), and tells the
// others (a control message), which claim its runs at once as those of a
// lost replica and run each again as its next attempt (claim.go); a
// replica that missed the message claims them at its next sweep. With no other
// live replica in the liveness set (one replica, the in-process store)
// nothing is handed off: the turns finish within the grace or are
// cancelled, as before.

// handsOff reports whether a running response is handed off rather than
// cancelled when this replica shuts down: a background turn that the store
// holds with what a claimer needs to run it again (rerunRequest: an agent
// with onReplicaLoss: rerun), not suspended on a wait. Resume points
// (journal) and waits held by the store extend it.
func (r *Response) handsOff() bool {
	if !r.Background || r.rerunRequest == nil || !r.inStore.Load() {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.waiter == nil && !r.closed && !r.agentReturned
}

// errHandedOff is the cause a handed-off attempt is stopped with.
var errHandedOff = errors.New("runtime: the response was handed off to another replica (shutdown)")

// handOff hands the resumable running turns to the other live replicas and
// returns how many it handed off (0: none could take them, or none runs).
func (s *Service) handOff(ctx context.Context) int {
	s.mu.Lock()
	var turns []*Response
	for _, r := range s.byID {
		if r.handsOff() {
			turns = append(turns, r)
		}
	}
	stopHeartbeat := s.stopHeartbeat
	s.mu.Unlock()
	if len(turns) == 0 || stopHeartbeat == nil {
		return 0
	}
	ctx, cancel := context.WithTimeout(ctx, recordTimeout)
	defer cancel()
	live, err := s.store.LiveReplicas(ctx, time.Now(), 10)
	if err != nil {
		s.log.Warn("cannot read the replicas' liveness; running responses are not handed off", "err", err)
		return 0
	}
	others := 0
	for _, id := range live {
		if id != s.replica {
			others++
		}
	}
	if others == 0 {
		s.log.Info("no other live replica: running responses finish within the grace or are cancelled", "responses", len(turns))
		return 0
	}
	// The heartbeat stops first, so that none renews the record after it
	// lapsed; the record lapses a whole TTL ago, whatever the clocks'
	// skew between replicas.
	stopHeartbeat()
	<-s.heartbeatDone
	s.markHandOffs(ctx, turns) // attempts.go: their claims spend no attempt
	now := time.Now()
	if err := s.store.Heartbeat(ctx, s.replica, -s.liveness, now); err != nil {
		// The record lapses by itself within the TTL: the others claim
		// the runs then.
		s.log.Warn("cannot mark this replica's liveness record lapsed; its runs are claimed when it lapses", "err", err)
	}
	// Each attempt stops at once: its rerun starts over (a backend that
	// records resume points goes on from its last one).
	for _, r := range turns {
		r.cancel(errHandedOff)
		s.handoffs().RunHandedOff()
	}
	// The others claim the runs at once rather than at their next sweep,
	// and a replica that started moments ago does not wait until it trusts
	// its own liveness: this message says the record lapsed on purpose.
	if err := s.sendControl(ctx, control{Op: opHandOff, Replica: s.replica}); err != nil {
		s.log.Warn("cannot tell the other replicas of the hand-off; they claim the runs at their next sweep", "err", err)
	}
	s.log.Info("handed off running responses to the other replicas", "responses", len(turns), "liveReplicas", others)
	return len(turns)
}

// opHandOff is the control message a replica that hands its runs off
// publishes to the others.
const opHandOff = "handoff"

// onHandOff claims the runs of a replica that handed them off, on a
// goroutine of its own (not the hub's). A replica that drains (about to
// shut down itself) leaves them to the others, or to its sweep.
func (s *Service) onHandOff(replica string) {
	s.mu.Lock()
	leaving := s.closing || s.draining
	s.mu.Unlock()
	if replica == "" || replica == s.replica || leaving {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), recordTimeout)
		defer cancel()
		runs, err := s.store.RunsOf(ctx, replica, 100)
		if err != nil {
			s.log.Warn("cannot read the runs a replica handed off; they are claimed at the next sweep", "replica", replica, "err", err)
			return
		}
		for _, run := range runs {
			s.takeOverAfter(ctx, run, false) // handed off: the same attempt goes on
		}
	}()
}

// handedOff reports whether the attempt ended because it was handed off
// (one that completed meanwhile records its receipt as usual).
func (r *Response) handedOff(runErr error) bool {
	return runErr != nil && context.Cause(r.ctx) == errHandedOff
}

// leave ends a handed-off attempt here without recording anything: the
// run stays in progress in the store, held by this replica's lapsed
// record, until another replica claims it and runs it again.
func (r *Response) leave() {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	r.limits.release()
	r.detachStream()
	r.reachBoundary(Outcome{Envelope: r.failedEnvelope(errClaimed), Err: errClaimed})
}

// HandoffObserver is told of hand-offs, for metrics: an Observer that
// implements it too is told.
type HandoffObserver interface {
	// RunHandedOff: this replica, shutting down, handed a running turn
	// to the other replicas.
	RunHandedOff()
}

func (s *Service) handoffs() HandoffObserver {
	if h, ok := s.observer.(HandoffObserver); ok {
		return h
	}
	return noObserver{}
}

func (noObserver) RunHandedOff() {}
