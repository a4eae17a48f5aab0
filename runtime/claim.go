package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"time"

	"github.com/harnest/harnest/store"
)

// Claiming the runs of a lost replica. Each replica renews a short
// liveness record (heartbeat); a sweeper that finds a replica's record
// lapsed, or a run's lease lapsed past its grace (sweep.go), claims the run
// (store.ClaimRun): the run's epoch moves on, so every later write of the
// lost attempt is refused (store.ErrFenced), and this replica holds it.
// Then either the turn runs again here, from its stored request, as the
// next attempt (an agent configured onReplicaLoss: rerun, within the
// attempt budget), continuing the event log after a response.retracted
// that withdraws what the lost attempt streamed; or its receipt becomes
// failed with replica_lost.
//
// Only background responses are run again: a response that streamed to,
// or was awaited by, a caller of the lost replica lost that caller with
// it. A run suspended on an approval or a client tool of an agent that can
// be run again is parked instead: it stays requires_action, held by no
// replica, until its answer or its expiry continues it on any replica
// (waits_durable.go); otherwise it fails with replica_lost.
//
// The resume point handed over is an opaque request the runtime stored
// with the run (store.Begin.Request); later backends add their own
// resume points beside it.

// Defaults of the durability settings.
const (
	DefaultLiveness    = 3 * time.Second
	DefaultMaxAttempts = 3
)

// rerunRequest is what a claimer needs to run a turn again.
type rerunRequest struct {
	User        string          `json:"user"`
	Input       string          `json:"input"`
	Parts       []InputPart     `json:"parts,omitempty"`
	Metadata    json.RawMessage `json:"metadata,omitempty"`
	ClientTools json.RawMessage `json:"clientTools,omitempty"`
	Context     json.RawMessage `json:"context,omitempty"`
	Message     *TurnMessage    `json:"message,omitempty"`
	Transport   string          `json:"transport,omitempty"`
	// ParallelClientTools is ResponseRequest.ParallelClientTools.
	ParallelClientTools bool `json:"parallelClientTools,omitempty"`
	// OnlyAfterAWait marks the request of a turn that is not run in the
	// background: it is run again only once it waits for an answer (its
	// caller then no longer awaits it), never when its replica is lost
	// while it runs (the caller was lost with it).
	OnlyAfterAWait bool `json:"onlyAfterAWait,omitempty"`
}

// encodeRerun is the stored request of a turn that may run again (nil when
// it cannot be encoded: the turn then fails when its replica is lost);
// onlyAfterAWait for a turn that is not run in the background, of an agent
// whose waits outlive their replica.
func encodeRerun(req ResponseRequest, user string, onlyAfterAWait bool) []byte {
	b, err := json.Marshal(rerunRequest{User: user, Input: req.Input, Parts: req.Parts, Metadata: req.Metadata,
		ClientTools: req.ClientTools, Context: req.Context, Message: req.Message, Transport: req.Transport,
		OnlyAfterAWait: onlyAfterAWait, ParallelClientTools: req.ParallelClientTools})
	if err != nil {
		return nil
	}
	return b
}

// heartbeat renews this replica's liveness record every third of its TTL
// until ctx ends. beatSince is when the current unbroken row of successful
// heartbeats began (zero after a failure).
func (s *Service) heartbeat(ctx context.Context) {
	defer close(s.heartbeatDone)
	t := time.NewTicker(s.liveness / 3)
	defer t.Stop()
	for {
		now := time.Now()
		err := s.store.Heartbeat(ctx, s.replica, s.liveness, now)
		s.mu.Lock()
		switch {
		case err != nil:
			s.beatSince = time.Time{}
		case s.beatSince.IsZero():
			s.beatSince = now
		}
		s.mu.Unlock()
		if err != nil && ctx.Err() == nil {
			s.log.Warn("cannot renew this replica's liveness record", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// livenessTrusted reports whether this replica's own heartbeats went
// through for a whole TTL: only then is another replica's lapsed record
// its death rather than a store outage that every replica lived through
// (they all renew within a third of the TTL once the store is back).
func (s *Service) livenessTrusted() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.beatSince.IsZero() && time.Since(s.beatSince) >= s.liveness
}

// sweepLostReplicas claims the runs of every replica whose liveness record
// lapsed, and forgets the record of one that has no run left.
func (s *Service) sweepLostReplicas(ctx context.Context) {
	if !s.livenessTrusted() {
		return
	}
	lost, err := s.store.LapsedReplicas(ctx, time.Now(), 10)
	if err != nil {
		s.log.Warn("cannot read the replicas' liveness", "err", err)
		return
	}
	for _, replica := range lost {
		if replica == s.replica {
			continue
		}
		runs, err := s.store.RunsOf(ctx, replica, 100)
		if err != nil {
			s.log.Warn("cannot read the runs of a lost replica", "replica", replica, "err", err)
			continue
		}
		if len(runs) == 0 {
			_ = s.store.ForgetReplica(ctx, replica, time.Now())
			continue
		}
		for _, run := range runs {
			s.takeOver(ctx, run)
		}
	}
}

// takeOver claims a run of a lost replica and runs it again or fails it.
// It returns false when the run could not be claimed because another
// response holds its session: SweepLapsed fails it then, as before.
func (s *Service) takeOver(ctx context.Context, run store.Lapsed) bool {
	return s.takeOverAfter(ctx, run, true)
}

// takeOverAfter is takeOver of a run whose replica was lost (lost: running
// it again spends an attempt, attempts.go) or handed it off (it goes on as
// the same attempt).
func (s *Service) takeOverAfter(ctx context.Context, run store.Lapsed, lost bool) bool {
	s.mu.Lock()
	closing := s.closing
	s.mu.Unlock()
	if closing || s.local(run.ResponseID) != nil {
		return true // a replica that shuts down leaves the run to the others
	}
	claimed, err := s.store.ClaimRun(ctx, store.Claim{User: run.User, Session: run.Session, ResponseID: run.ResponseID,
		Replica: run.Replica, Epoch: run.Epoch, Claimer: s.replica, Lease: s.lease})
	switch {
	case errors.Is(err, store.ErrSessionBusy):
		return false
	case errors.Is(err, store.ErrFenced), errors.Is(err, store.ErrReceiptFinal):
		return true // claimed by another replica, or over
	case err != nil:
		if ctx.Err() == nil {
			s.log.Warn("cannot claim the run of a lost replica", "responseId", run.ResponseID, "err", err)
		}
		return true // looked at again at the next sweep
	}
	s.durability().RunClaimed()
	if s.parkWaiting(ctx, run, claimed) {
		return true // suspended: its answer or expiry continues it (waits_durable.go)
	}
	run.Webhook = claimed.Webhook
	var req rerunRequest
	rerun := s.rerun && claimed.Request != nil && json.Unmarshal(claimed.Request, &req) == nil &&
		receiptStatus(claimed.Receipt) == StatusInProgress
	if rerun {
		if rerun, claimed = s.spendAttempt(ctx, run, claimed, lost); !rerun && claimed.Attempt == 0 {
			return true // not counted: looked at again when its lease lapses (attempts.go)
		}
	}
	if rerun {
		err = s.resume(run, claimed)
		if err == nil {
			s.durability().RunResumed()
			return true
		}
		s.log.Warn("cannot run the claimed response again; failing it", "responseId", run.ResponseID, "err", err)
	}
	s.failClaimed(ctx, run, claimed)
	return true
}

// receiptStatus is a receipt's status ("" when it cannot be read).
func receiptStatus(receipt []byte) string {
	var env struct {
		Status string `json:"status"`
	}
	_ = json.Unmarshal(receipt, &env)
	return env.Status
}

// failClaimed records a claimed run as failed with replica_lost, and sends
// its webhook and tells OnSwept, as a sweep did.
func (s *Service) failClaimed(ctx context.Context, run store.Lapsed, claimed store.Claimed) {
	receipt := replicaLostReceipt(run, claimed.Attempt)
	// An error event ends the log, so that followers learn of it at once.
	lost := Event{Type: EventError, Sequence: claimed.LastSequence + 1, ResponseID: run.ResponseID, SessionID: run.Session,
		Error: "The replica running the response was lost"}
	encoded, _ := lost.appendJSON(nil)
	err := s.store.CommitResponse(ctx, store.Commit{User: run.User, Session: run.Session, ResponseID: run.ResponseID,
		Receipt: receipt, Events: []store.Event{{Sequence: lost.Sequence, Type: lost.Type, JSON: encoded}},
		Release: true, Replica: s.replica, Epoch: claimed.Epoch, Now: s.timestamp()})
	if err != nil {
		// Its lease lapses and a later sweep claims it again.
		s.log.Warn("cannot fail the run of a lost replica", "responseId", run.ResponseID, "err", err)
		return
	}
	s.log.Warn("failed a response whose replica was lost", "responseId", run.ResponseID, "attempts", claimed.Attempt)
	s.sweptOne(run, receipt)
	s.queueLeftoverSteers(ctx, run.User, run.Session, run.ResponseID, claimed.Epoch) // steer_leftover.go
}

// resume runs a claimed turn again here, as attempt claimed.Attempt: its
// events follow the log's last one, starting with the retraction of what
// the lost attempts streamed and an activity naming the attempt.
func (s *Service) resume(run store.Lapsed, claimed store.Claimed) error {
	ctx := context.Background()
	resumed, err := s.recall(ctx, run, claimed) // journal.go: the resume points, what to retract after them
	if err != nil {
		return err
	}
	r, err := s.prepareStored(ctx, storedRun{user: run.User, session: run.Session, responseID: run.ResponseID,
		request: claimed.Request, webhook: claimed.Webhook, epoch: claimed.Epoch, attempt: claimed.Attempt,
		lastSequence: claimed.LastSequence})
	if err != nil {
		return err
	}
	resumed.restore(r)
	r.startTrace(s.tracer)
	r.emit(Event{Type: EventRetracted, Retracted: &resumed.retraction})
	r.emit(Event{Type: EventAgentActivity, Activity: "attempt", Code: strconv.Itoa(claimed.Attempt)})
	s.log.Info("running again the response of a lost replica", "responseId", r.ID, "attempt", claimed.Attempt, "epoch", claimed.Epoch)
	s.runners.run(r)
	return nil
}

// errClaimed is the outcome, on the replica that ran it, of an attempt
// whose run another replica claimed meanwhile (it froze or lost the store
// longer than its liveness): the turn goes on there.
var errClaimed = &Error{Kind: ErrUnavailable, Code: CodeReplicaLost, Detail: "The response is continued by another replica"}

// fenced stops an attempt whose run another replica claimed: nothing it
// writes is the turn's any more.
func (r *Response) fenced() {
	r.svc.durability().WriteFenced()
	r.cancel(errFencedCause)
}

var errFencedCause = errors.New("runtime: the run was claimed by another replica")

// DurabilityObserver is told of claims, for metrics: an Observer that
// implements it too is told.
type DurabilityObserver interface {
	// RunClaimed: this replica claimed a run of a lost replica.
	RunClaimed()
	// RunResumed: this replica runs a claimed turn again.
	RunResumed()
	// WriteFenced: a write of an attempt on this replica was refused
	// because another replica claimed its run.
	WriteFenced()
}

// durability is the service's DurabilityObserver (one that does nothing
// when the Observer is not one).
func (s *Service) durability() DurabilityObserver {
	if d, ok := s.observer.(DurabilityObserver); ok {
		return d
	}
	return noObserver{}
}

func (noObserver) RunClaimed()  {}
func (noObserver) RunResumed()  {}
func (noObserver) WriteFenced() {}
