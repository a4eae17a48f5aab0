package runtime

import (
	"context"
	"errors"

	"github.com/harnest/harnest/store"
)

// The attempt budget (store.maxAttempts) counts the times a turn is run
// again after its replica was LOST (its liveness lapsed, or its lease), not
// the claims of its run: a hand-off on shutdown, a suspended turn parked
// by a sweeper or continued by its answer each move the run's epoch on
// (fencing), and go on as the same attempt. The store counts the attempts
// apart from the epoch (store.Attempts): a claim hands back the attempts
// so far (store.Claimed.Attempt), and a claimer that runs the turn again
// after a loss spends one first, fenced by its epoch. A replica that hands
// its turns off marks each run first (store.Attempts.MarkHandOff), so
// that the claim that follows spends none however it found the run: by
// the hand-off's message, or by a sweep that saw the lapsed liveness
// record first.

// markHandOffs marks the runs of turns this replica hands off. A mark the
// store refuses costs an attempt at worst: the claimers that got the
// hand-off's message spend none anyway.
func (s *Service) markHandOffs(ctx context.Context, turns []*Response) {
	for _, r := range turns {
		err := s.store.MarkHandOff(ctx, r.turn.UserID, r.SessionID, r.ID, r.epoch)
		if err != nil && !errors.Is(err, store.ErrReceiptFinal) {
			s.log.Warn("cannot mark a response handed off", "responseId", r.ID, "err", err)
		}
	}
}

// spendAttempt decides whether a claimed turn is run again: after a loss
// it spends an attempt and runs it within the budget; after a hand-off it
// runs it as the same attempt. The claimed it returns carries the attempt
// the turn runs as (rerun), or the attempts that ran (to fail it with);
// Attempt 0 when the store could not count it: the run is left alone.
func (s *Service) spendAttempt(ctx context.Context, run store.Lapsed, claimed store.Claimed, lost bool) (bool, store.Claimed) {
	claimed.Attempt = max(claimed.Attempt, 1)
	if !lost || claimed.HandedOff {
		return true, claimed
	}
	n, err := s.store.SpendAttempt(ctx, run.User, run.Session, run.ResponseID, claimed.Epoch)
	switch {
	case errors.Is(err, store.ErrFenced), errors.Is(err, store.ErrReceiptFinal):
		claimed.Attempt = 0 // claimed by another replica since, or over
		return false, claimed
	case err != nil:
		s.log.Warn("cannot count the attempt of a claimed response; it is looked at again when its lease lapses",
			"responseId", run.ResponseID, "err", err)
		claimed.Attempt = 0
		return false, claimed
	}
	if n > s.maxAttempts {
		claimed.Attempt = n - 1 // the attempts that ran
		return false, claimed
	}
	claimed.Attempt = n
	return true, claimed
}
