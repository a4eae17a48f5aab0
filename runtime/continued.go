package runtime

import "context"

// ContinuedElsewhere reports whether a turn's context ended because the
// turn goes on on another replica: its replica handed it off on shutdown
// (handoff.go), or another replica claimed its run (claim.go). A backend
// that started something outside (a remote A2A task, a relay inbox item)
// then leaves it as it is instead of cancelling it: the next attempt
// re-attaches to it from the turn's journal.
func ContinuedElsewhere(ctx context.Context) bool {
	cause := context.Cause(ctx)
	return cause == errHandedOff || cause == errFencedCause
}
