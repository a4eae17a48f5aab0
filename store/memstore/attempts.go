package memstore

import (
	"context"

	"github.com/harnest/harnest/store"
)

// MarkHandOff marks a run handed off under the session's lock: see
// store.Attempts.
func (s *Store) MarkHandOff(ctx context.Context, user, session, responseID string, epoch int) error {
	if err := s.closed.check(); err != nil {
		return err
	}
	sh, sp := s.lockSpace(user, session)
	defer sh.mu.Unlock()
	var r *response
	if sp != nil {
		r = sp.responses.get(responseID)
	}
	switch {
	case r == nil:
		return store.ErrReceiptFinal
	case r.fenced(epoch):
		return store.ErrFenced
	}
	if _, ok := r.liveReceipt(s.now()); !ok || r.final {
		return store.ErrReceiptFinal
	}
	r.handedOff = true
	return nil
}

// SpendAttempt counts one more attempt of a run under the session's lock:
// see store.Attempts.
func (s *Store) SpendAttempt(ctx context.Context, user, session, responseID string, epoch int) (int, error) {
	if err := s.closed.check(); err != nil {
		return 0, err
	}
	sh, sp := s.lockSpace(user, session)
	defer sh.mu.Unlock()
	var r *response
	if sp != nil {
		r = sp.responses.get(responseID)
	}
	if r == nil {
		return 0, store.ErrReceiptFinal
	}
	if r.fenced(epoch) {
		return 0, store.ErrFenced
	}
	if _, ok := r.liveReceipt(s.now()); !ok || r.final {
		return 0, store.ErrReceiptFinal
	}
	r.attempts = max(r.attempts, 1) + 1
	return r.attempts, nil
}
