package store

import "context"

// Attempts count how many times a run was run again after its replica was
// lost (owner: runtime, runtime/claim.go), apart from its epoch. Every
// claim moves a run's epoch on (ClaimRun: fencing), but only a claim that
// runs the turn again because its replica was lost spends an attempt of
// the budget (store.maxAttempts); a hand-off on shutdown, a suspended turn
// parked or continued by its answer move the epoch and spend none. A run's
// attempts live beside its epoch (the same Redis Cluster slot), expire
// with its receipt, and go with its session.
type Attempts interface {
	// SpendAttempt counts one more attempt of a run, written by the run's
	// attempt epoch, and returns the attempts so far, this one included
	// (a run never run again after a loss is at attempt 1). ErrFenced (and
	// nothing counted): the run's epoch is not epoch; ErrReceiptFinal:
	// its receipt is final or gone.
	SpendAttempt(ctx context.Context, user, session, responseID string, epoch int) (int, error)
	// MarkHandOff marks a run handed off by its holder, written by the
	// run's attempt epoch, so that its next claim, whoever makes it and
	// however it found the run, says so (Claimed.HandedOff) and spends no
	// attempt; that claim clears the mark. ErrFenced (nothing marked):
	// the run's epoch is not epoch; ErrReceiptFinal: its receipt is final
	// or gone.
	MarkHandOff(ctx context.Context, user, session, responseID string, epoch int) error
}
