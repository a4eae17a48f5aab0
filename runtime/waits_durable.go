package runtime

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strconv"
	"time"

	"github.com/harnest/harnest/store"
)

// Waits that hold no process. A suspended turn (an approval, a client
// tool) lives in the store: its wait, its requires_action receipt, its run
// and the request to run it again. Its replica's goroutine is only a
// shortcut: when that replica is gone, the turn goes on without it.
//
//   - An answer is stored (store.ResolveWait) whether or not a replica
//     holds the turn. When the holder is alive it resumes the turn as
//     before; when it is gone (it no longer listens, or a sweeper parked
//     the run), the answering replica claims the run (store.ClaimRun) and
//     runs the turn again as the next attempt (continueWait).
//   - A turn asks for its waits with deterministic IDs (waitID): the n-th
//     approval or client tool of a response has the same ID in every
//     attempt. On a later attempt, a wait already answered (or expired) is
//     answered from the store at once instead of suspending (replayWait).
//   - A sweeper that claims the run of a lost replica suspended on a wait
//     does not fail it: it parks it (parkWaiting), registered under
//     parkedReplica and holding its session until the wait expires, its
//     wait pending and its receipt requires_action.
//   - Every sweeper looks at the parked runs (sweepParkedWaits): a wait
//     past its expiry is expired and its turn run again (which then sees
//     the expiry as it would have); a wait answered whose answerer died
//     before it claimed the run is continued the same way.
//
// All of this holds for agents whose turns may be run again
// (waitsResumable).

// parkedReplica is the name runs held by no replica are registered under
// (no replica has it: replica IDs are random).
const parkedReplica = "(waiting)"

// waitsResumable reports whether a suspended turn of this service's agent
// outlives its replica: the agent may be run again (onReplicaLoss: rerun).
// The switch for backends that resume from a journal (the `model` backend
// once it records its steps, runtime/journal.go) goes here too.
func (s *Service) waitsResumable() bool {
	return s.rerun
}

// waitID is the deterministic ID of the response's next wait of that
// kind: the same in every attempt of the turn, so that a rerun finds the
// answer given to an earlier attempt. prefix keeps the ID's usual form.
func (r *Response) waitID(prefix, kind, callID string) string {
	r.mu.Lock()
	r.waits++
	n := r.waits
	r.mu.Unlock()
	return waitIDFor(prefix, r.ID, kind, callID, n)
}

// waitIDFor is the ID of the n-th wait (from 1) of a response.
func waitIDFor(prefix, responseID, kind, callID string, n int) string {
	sum := sha256.Sum256([]byte(responseID + "\x00" + kind + "\x00" + callID + "\x00" + strconv.Itoa(n)))
	return prefix + hex.EncodeToString(sum[:16])
}

// replayWait answers a wait from the store when an earlier attempt of the
// turn asked for it already: answered, expired or cancelled, it is the
// answer (ok), and nothing is announced again. A wait still pending keeps
// its expiry (*expires is set to it) and the turn suspends on it again.
func (r *Response) replayWait(ctx context.Context, id string, expires *time.Time) (store.Wait, bool, error) {
	if r.epoch <= 1 {
		return store.Wait{}, false, nil // a first attempt asks for everything
	}
	s := r.svc
	w, found, err := s.store.ReadWait(ctx, r.turn.UserID, r.SessionID, id)
	if err != nil || !found || w.ResponseID != r.ID {
		return store.Wait{}, false, err
	}
	if w.Status == store.WaitPending {
		if s.now().Before(w.ExpiresAt) {
			*expires = w.ExpiresAt
			return store.Wait{}, false, nil
		}
		if err := s.store.FinishWait(ctx, r.turn.UserID, r.SessionID, r.ID, id, store.WaitExpired, r.epoch); err != nil {
			if errors.Is(err, store.ErrFenced) {
				r.fenced()
			}
			return store.Wait{}, false, err
		}
		if w, _, err = s.store.ReadWait(ctx, r.turn.UserID, r.SessionID, id); err != nil {
			return store.Wait{}, false, err
		}
	}
	s.log.Info("answered a wait from the store", "responseId", r.ID, "waitId", id, "status", w.Status, "attempt", r.epoch)
	return w, true, nil
}

// continueWait runs again, here, the turn of an answered wait whose
// holder is gone: it claims the run at the epoch the answer found
// (store.ErrFenced: another replica claimed it first and continues it).
func (s *Service) continueWait(ctx context.Context, user string, w store.Wait, registeredAs string) error {
	if !s.waitsResumable() {
		return errExecutionUnavailable
	}
	s.mu.Lock()
	closing := s.closing
	s.mu.Unlock()
	if closing {
		return errShuttingDown
	}
	run := store.Lapsed{User: user, Session: w.Session, ResponseID: w.ResponseID, Replica: registeredAs, Epoch: w.Epoch}
	claimed, err := s.store.ClaimRun(ctx, store.Claim{User: user, Session: w.Session, ResponseID: w.ResponseID,
		Replica: registeredAs, Epoch: w.Epoch, Claimer: s.replica, Lease: s.lease})
	switch {
	case errors.Is(err, store.ErrFenced):
		return nil // claimed by another answerer or sweeper, which continues it
	case errors.Is(err, store.ErrReceiptFinal), errors.Is(err, store.ErrSessionBusy):
		return errExecutionUnavailable
	case err != nil:
		return s.storeFailure(err)
	}
	s.durability().RunClaimed()
	run.Webhook = claimed.Webhook
	var req rerunRequest
	if claimed.Request == nil || json.Unmarshal(claimed.Request, &req) != nil {
		s.failClaimed(ctx, run, claimed)
		return errExecutionUnavailable
	}
	if err := s.resume(run, claimed, req); err != nil {
		s.log.Warn("cannot continue the answered response; failing it", "responseId", w.ResponseID, "err", err)
		s.failClaimed(ctx, run, claimed)
		return errExecutionUnavailable
	}
	s.durability().RunResumed()
	s.log.Info("continued an answered response whose replica was gone", "responseId", w.ResponseID, "waitId", w.ID, "attempt", claimed.Attempt)
	return nil
}

// parkWaiting is the sweeper's hook (claim.go) for a claimed run of a lost
// replica: a run suspended on a wait, of an agent whose waits outlive
// their replica, is parked (reports true) rather than failed or run again.
// A running turn that is not in the background is failed (reports true),
// as it was before it stored its request for its waits.
func (s *Service) parkWaiting(ctx context.Context, run store.Lapsed, claimed store.Claimed) bool {
	if !s.waitsResumable() {
		return false
	}
	if receiptStatus(claimed.Receipt) != StatusRequiresAction {
		var w rerunRequest
		if json.Unmarshal(claimed.Request, &w) == nil && w.OnlyAfterAWait {
			run.Webhook = claimed.Webhook
			s.failClaimed(ctx, run, claimed)
			return true
		}
		return false
	}
	var env struct {
		RequiredAction *RequiredAction `json:"requiredAction"`
	}
	hold := time.Minute
	if json.Unmarshal(claimed.Receipt, &env) == nil && env.RequiredAction != nil {
		if expires, err := time.Parse(time.RFC3339Nano, env.RequiredAction.ExpiresAt); err == nil {
			hold += max(time.Until(expires), 0)
		}
	}
	_, err := s.store.ClaimRun(ctx, store.Claim{User: run.User, Session: run.Session, ResponseID: run.ResponseID,
		Replica: s.replica, Epoch: claimed.Epoch, Claimer: parkedReplica, Lease: hold})
	if err != nil && ctx.Err() == nil {
		// Its lease lapses and a later sweep claims it again.
		s.log.Warn("cannot park the suspended run of a lost replica", "responseId", run.ResponseID, "err", err)
		return true
	}
	s.log.Info("parked a suspended response whose replica was lost: its answer continues it", "responseId", run.ResponseID)
	return true
}

// sweepParkedWaits continues the parked runs whose wait expired or was
// answered (by a replica that died before it claimed the run), and forgets
// the registrations of parked runs continued since.
//
// The parked runs are found in the run registry by a scan (RunsOf), so a
// sweeper looks at them once per liveness TTL rather than at every sweep:
// a wait expires up to that much after its time.
func (s *Service) sweepParkedWaits(ctx context.Context) {
	if !s.waitsResumable() || time.Since(s.parkedSweptAt) < s.liveness {
		return
	}
	s.parkedSweptAt = time.Now() // only the sweeper's goroutine reads and writes it
	runs, err := s.store.RunsOf(ctx, parkedReplica, 100)
	if err != nil {
		if ctx.Err() == nil {
			s.log.Warn("cannot read the parked runs", "err", err)
		}
		return
	}
	for _, run := range runs {
		s.sweepParked(ctx, run)
	}
}

// sweepParked looks at one parked run.
func (s *Service) sweepParked(ctx context.Context, run store.Lapsed) {
	forget := func() { // a stale registration: the claim is refused (fenced or final) and forgets it
		_, _ = s.store.ClaimRun(ctx, store.Claim{User: run.User, Session: run.Session, ResponseID: run.ResponseID,
			Replica: parkedReplica, Epoch: run.Epoch, Claimer: parkedReplica, Lease: time.Millisecond})
	}
	receipt, found, err := s.store.Receipt(ctx, run.User, run.Session, run.ResponseID)
	if err != nil {
		return
	}
	var env struct {
		Status         string          `json:"status"`
		RequiredAction *RequiredAction `json:"requiredAction"`
	}
	if !found || json.Unmarshal(receipt, &env) != nil || env.Status != StatusRequiresAction || env.RequiredAction == nil {
		forget()
		return
	}
	w, found, err := s.store.ReadWait(ctx, run.User, run.Session, env.RequiredAction.ID)
	if err != nil {
		return
	}
	if !found || w.Epoch != run.Epoch {
		forget()
		return
	}
	if w.Status == store.WaitPending {
		if time.Now().Before(w.ExpiresAt) {
			return
		}
		// Expire it (the store does, answered past its expiry), unless an
		// answer won the race.
		kind := store.WaitApproval
		if env.RequiredAction.Type == "client_tool" {
			kind = store.WaitClientTool
		}
		_, _, _ = s.store.ResolveWait(ctx, run.User, w.ID, kind, store.WaitExpired, nil, time.Now())
		s.log.Info("a parked response's wait expired with no replica holding it", "responseId", run.ResponseID, "waitId", w.ID)
	}
	if err := s.continueWait(ctx, run.User, w, parkedReplica); err != nil && ctx.Err() == nil {
		s.log.Warn("cannot continue a parked response", "responseId", run.ResponseID, "err", err)
	}
}
