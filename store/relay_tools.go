package store

import (
	"context"
	"time"
)

// RelayTools keeps what tools at home need: participants' callback tokens,
// the owner's tool grants, and the tool calls of each run (its counter and
// each call's record, found by call ID). Owner: the relay (package relay),
// with Relay.
//
// As for Relay, everything but the callback token's entry point belongs to
// an owner, the store never sees a secret (a callback token arrives as the
// caller's hash of it), and times are kept to the millisecond.
type RelayTools interface {
	// PutRelayCallback stores a participant's callback token until
	// c.ExpiresAt and ends the participant's earlier one, if any.
	PutRelayCallback(ctx context.Context, c RelayCallback, now time.Time) error
	// RelayCallbackByToken finds a callback token (by its hash) that has
	// not expired by now and was not ended.
	RelayCallbackByToken(ctx context.Context, tokenHash string, now time.Time) (RelayCallback, bool, error)
	// EndRelayCallback ends the callback token of one of owner's
	// participants (paused, disconnected, paired again); none: nothing.
	EndRelayCallback(ctx context.Context, owner, participant string) error

	// SetRelayGrants replaces the tools granted to one of owner's
	// participants (empty: none), kept for keep.
	SetRelayGrants(ctx context.Context, owner, participant string, tools []string, keep time.Duration) error
	// RelayGrants reads the tools granted to one of owner's participants,
	// sorted.
	RelayGrants(ctx context.Context, owner, participant string) ([]string, error)

	// BeginRelayToolCall records a new call (c.Participant, c.Run,
	// c.CallID; c.Status RelayCallRunning, or RelayCallAwaiting with
	// c.ApprovalID) unless one with that call ID exists in the run: then
	// it returns that one and existing is true, and counts nothing. A new
	// call counts in the run's counter: ErrRelayRunSpent refuses it when
	// the run already has maxCalls calls. The call, the counter and the
	// participant's list of calls are kept for keep. Two callers racing on
	// one call ID: one begins it, the other gets it as existing.
	BeginRelayToolCall(ctx context.Context, owner string, c RelayToolCall, maxCalls int, keep time.Duration) (got RelayToolCall, existing bool, err error)
	// GetRelayToolCall reads one call of a run.
	GetRelayToolCall(ctx context.Context, owner, participant, run, callID string) (RelayToolCall, bool, error)
	// DecideRelayToolCall answers the approval of a call waiting for it:
	// RelayCallApproved or RelayCallDenied, once. It returns the call as
	// it is after; ErrRelayApprovalUnknown (no such approval of owner's)
	// or ErrRelayApprovalDecided (not waiting any more) refuse it.
	DecideRelayToolCall(ctx context.Context, owner, approvalID string, approve bool, now time.Time) (RelayToolCall, error)
	// ClaimRelayToolCall moves an approved call to RelayCallRunning: true
	// for the one caller that may run it, false for everyone else.
	ClaimRelayToolCall(ctx context.Context, owner, participant, run, callID string) (bool, error)
	// FinishRelayToolCall records the outcome of a running call
	// (c.Status RelayCallCompleted or RelayCallFailed, c.Code, c.Result,
	// c.FinishedAt); a call that is not running is left as it is.
	FinishRelayToolCall(ctx context.Context, owner string, c RelayToolCall) error
	// ListRelayToolCalls returns up to limit of the calls of one of
	// owner's participants, newest first (at most RelayToolCallsMax are
	// kept per participant).
	ListRelayToolCalls(ctx context.Context, owner, participant string, limit int) ([]RelayToolCall, error)
}

// Statuses of a relay tool call.
const (
	RelayCallAwaiting  = "awaiting_approval" // waits for the owner's decision
	RelayCallApproved  = "approved"          // approved, not yet run
	RelayCallDenied    = "denied"            // the owner denied it: never run
	RelayCallRunning   = "running"           // a replica runs it now
	RelayCallCompleted = "completed"         // ran; Result is its output
	RelayCallFailed    = "failed"            // ran and failed; Result says why
)

// RelayToolCallsMax is how many calls of one participant are kept at
// least (the newest).
const RelayToolCallsMax = 200

// RelayCallback is a participant's callback token (its hash).
type RelayCallback struct {
	TokenHash   string
	Owner       string
	Participant string
	ExpiresAt   time.Time
}

// RelayToolCall is one call of a tool by a participant within a run (an
// inbox item), and what became of it.
type RelayToolCall struct {
	Participant string
	Run         string // the inbox item the run note was issued for
	CallID      string // the participant's, unique within the run
	Tool        string
	// ArgsHash is the caller's hash of the arguments, to tell a repeated
	// call from a call ID used again for something else. The arguments
	// themselves are never stored.
	ArgsHash   string
	Status     string // one of the RelayCall* statuses
	ApprovalID string // set when the tool needs the owner's approval
	// Code names why a call failed or was denied (the caller's codes).
	Code string
	// Result is the tool's output (JSON), for the participant's repeats;
	// the owner's receipts never show it.
	Result     []byte
	StartedAt  time.Time
	FinishedAt time.Time // zero until it ends
}

// Final reports whether the call has its outcome.
func (c RelayToolCall) Final() bool {
	return c.Status == RelayCallCompleted || c.Status == RelayCallFailed || c.Status == RelayCallDenied
}
