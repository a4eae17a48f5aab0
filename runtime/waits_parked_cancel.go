package runtime

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/harnest/harnest/store"
)

// Ending a waiting turn that no replica holds. A turn suspended on an
// approval or a client tool whose replica is gone lives in the store only
// (parked by a sweeper, or not swept yet: waits_durable.go), so nobody
// acts on a "cancel", "interrupt" or "rollback" control message for it.
// The replica that is asked to end it does it itself, from the store:
// it claims the run (fencing any late write of the lost attempt), ends
// its pending wait as cancelled, records the cancelled receipt (for an
// interrupt, the user's turn and the partial answer stay in the
// transcript, marked interrupted; for a rollback and a cancel, nothing),
// frees the session, sends the webhook and starts the session's queued
// head.

// endWaitingElsewhere ends the response, waiting for an answer, when the
// replica its wait names is gone; cause is why it ends (errCancelled,
// errInterrupted or errRolledBack) and op the control message the holder
// would be sent ("cancel", "interrupt", "rollback"). ended is false when
// the response does not wait, or its replica lives and was sent op: it
// ends the response itself then.
func (s *Service) endWaitingElsewhere(ctx context.Context, user, session, responseID string, receipt []byte, op string, cause *Error) (body []byte, ended bool, err error) {
	var env struct {
		Status         string          `json:"status"`
		RequiredAction *RequiredAction `json:"requiredAction"`
	}
	if json.Unmarshal(receipt, &env) != nil || env.Status != StatusRequiresAction || env.RequiredAction == nil {
		return nil, false, nil
	}
	w, found, err := s.store.ReadWait(ctx, user, session, env.RequiredAction.ID)
	if err != nil {
		return nil, false, s.storeFailure(err)
	}
	if !found || w.ResponseID != responseID || w.Replica == "" || w.Replica == s.replica {
		return nil, false, nil
	}
	gone, err := s.sendControlTo(ctx, w.Replica, control{Op: op, ResponseID: responseID, User: user, Session: session})
	if err != nil {
		return nil, false, s.storeFailure(err)
	}
	if !gone {
		return nil, false, nil // its replica lives and ends it
	}
	claimed, err := s.store.ClaimRun(ctx, store.Claim{User: user, Session: session, ResponseID: responseID,
		Replica: w.Replica, Epoch: w.Epoch, Claimer: s.replica, Lease: s.lease})
	switch {
	case errors.Is(err, store.ErrFenced), errors.Is(err, store.ErrReceiptFinal), errors.Is(err, store.ErrSessionBusy):
		return nil, false, nil // continued or ended meanwhile by another replica
	case err != nil:
		return nil, false, s.storeFailure(err)
	}
	s.durability().RunClaimed()
	body, err = s.recordEndOfClaimed(ctx, user, session, responseID, w.ID, claimed, cause)
	if err != nil {
		return nil, false, err
	}
	return body, true, nil
}

// recordEndOfClaimed records the end of a claimed waiting run (cause: a
// cancel, an interrupt or a rollback), then sends its webhook and starts
// the session's queue.
func (s *Service) recordEndOfClaimed(ctx context.Context, user, session, responseID, waitID string, claimed store.Claimed, cause *Error) ([]byte, error) {
	if err := s.store.FinishWait(ctx, user, session, responseID, waitID, store.WaitCanceled, claimed.Epoch); err != nil && !errors.Is(err, store.ErrWaitResolved) {
		s.log.Warn("cannot end the wait of a cancelled response; its answer is refused anyway", "responseId", responseID, "err", err)
	}
	var partial Envelope
	_ = json.Unmarshal(claimed.Receipt, &partial)
	r := &Response{ID: responseID, SessionID: session, svc: s, metadata: partial.Metadata}
	if len(r.metadata) == 0 {
		r.metadata = emptyObject
	}
	r.turn.UserID = user
	now := s.timestamp()
	var messages [][]byte
	if cause == errInterrupted {
		var req rerunRequest
		if claimed.Request != nil && json.Unmarshal(claimed.Request, &req) == nil {
			r.turn.Input = req.Input
			content, err := s.resolveContent(ctx, Principal{UserID: user}, ResponseRequest{Input: req.Input, Parts: req.Parts, SessionID: session})
			if err == nil {
				r.turn.Content = content
				messages = r.keptOnInterrupt(cause, partial, now)
			}
		}
	}
	env := r.failedEnvelope(cause)
	completed := Event{Type: EventCompleted, Sequence: claimed.LastSequence + 1, ResponseID: responseID, SessionID: session, Envelope: &env}
	encoded, _ := completed.encode()
	body, _ := env.encode()
	err := s.store.CommitResponse(ctx, store.Commit{User: user, Session: session, ResponseID: responseID, Receipt: body,
		Events: []store.Event{{Sequence: completed.Sequence, Type: EventCompleted, JSON: encoded}}, Messages: messages,
		Release: true, Replica: s.replica, Epoch: claimed.Epoch, Now: now})
	if err != nil {
		// Its lease lapses, and a sweeper parks or fails it.
		return nil, s.storeFailure(err)
	}
	s.log.Info("ended a waiting response whose replica was gone", "responseId", responseID, "code", cause.Code)
	if w := storedWebhook(claimed.Webhook); w != nil {
		s.enqueueWebhook(user, responseID, w, body)
	}
	s.queueLeftoverSteers(ctx, user, session, responseID, claimed.Epoch) // steer_leftover.go
	go s.startNextQueued(user, session)
	return body, nil
}
