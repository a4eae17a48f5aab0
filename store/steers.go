package store

import (
	"context"
	"errors"
)

// Steers are the messages handed to running responses (steering, owner:
// runtime, runtime/steer*.go), kept under their response (one Redis
// Cluster slot: the session's) until the turn takes them, so that a steer
// answered 202 is never lost: the replica that runs the turn takes them at
// its next step; one that claims the run takes what is left; the turn's end
// takes what it never took and makes each the session's next message.
type Steers interface {
	// AppendSteer keeps steer (opaque bytes) for the response, after the
	// ones kept before it, in one operation with the check that the
	// response runs: ErrReceiptFinal when its receipt is final or gone,
	// ErrResponseQueued when it is still queued; nothing is kept then.
	// Kept steers last as long as the receipt.
	AppendSteer(ctx context.Context, user, session, responseID string, steer []byte) error
	// TakeSteers takes (removes and returns, in the order they were kept)
	// every steer kept for the response, written by the run's attempt
	// epoch: ErrFenced, and nothing taken, when the run's epoch is
	// another. None kept: nil.
	TakeSteers(ctx context.Context, user, session, responseID string, epoch int) ([][]byte, error)
}

// ErrResponseQueued refuses a steer for a response that waits in its
// session's queue (it is not running yet).
var ErrResponseQueued = errors.New("store: the response is queued, not running")
