package memstore

import (
	"context"
	"time"

	"github.com/harnest/harnest/store"
)

// MarkHandOff marks a run handed off under the session's lock: see
// store.Attempts.
func (s *Store) MarkHandOff(ctx context.Context, user, session, responseID string, epoch int) error {
	if err := s.closed.check(); err != nil {
		return err
	}
	sh, _, r := s.lockResponse(user, session, responseID)
	defer sh.mu.Unlock()
	if err := r.refusesAttempt(epoch, s.now()); err != nil {
		return err
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
	sh, _, r := s.lockResponse(user, session, responseID)
	defer sh.mu.Unlock()
	if err := r.refusesAttempt(epoch, s.now()); err != nil {
		return 0, err
	}
	r.attempts = max(r.attempts, 1) + 1
	return r.attempts, nil
}

// refusesAttempt says why the attempt epoch may not mark or count the run
// of r (nil: there is none) at now: store.ErrReceiptFinal when its receipt
// is gone or final, store.ErrFenced when the run's epoch is another.
func (r *response) refusesAttempt(epoch int, now time.Time) error {
	switch {
	case r == nil:
		return store.ErrReceiptFinal
	case r.fenced(epoch):
		return store.ErrFenced
	}
	if _, ok := r.liveReceipt(now); !ok || r.final {
		return store.ErrReceiptFinal
	}
	return nil
}
