package runtime

import (
	"errors"
	"fmt"
	"time"

	"github.com/harnest/harnest/internal/contract"
)

// Kinds of failure every transport maps once: to an HTTP status, a JSON-RPC
// code, a WebSocket error frame or an AG-UI RUN_ERROR.
var (
	ErrNotFound    = errors.New("not found")
	ErrConflict    = errors.New("conflict")
	ErrTooLarge    = errors.New("too large")
	ErrInvalid     = errors.New("invalid input")
	ErrUnavailable = errors.New("unavailable")
	ErrTimeout     = errors.New("timed out")
	ErrCancelled   = errors.New("cancelled")
	ErrNoOutput    = errors.New("no customer-facing output")
	ErrAgentFailed = errors.New("agent failed")
	// ErrAgentUnavailable is what a backend returns when it could not take
	// the turn for a reason the caller may know (the relay: no outside agent
	// connected, paused, deadline passed). Unlike other agent errors, its
	// code and sentence reach the receipt and the caller (HTTP 503).
	ErrAgentUnavailable = errors.New("agent unavailable")
	// ErrAgentRefused is what a backend returns when it will not answer
	// this caller at all (the relay answers its owner only): the code and
	// sentence reach the receipt and the caller as a refusal that clients
	// should not retry (HTTP 404, as for anything the caller may not use).
	ErrAgentRefused = errors.New("agent refused the caller")
	// ErrRateLimited means the caller asked for more than its share (its
	// running and queued turns, the server's queue); Error.RetryAfter says
	// when to try again (HTTP 429 with Retry-After).
	ErrRateLimited = errors.New("rate limited")

	// ErrApprovalDenied is what Turn.RequestApproval returns when a human
	// denied the action; ErrApprovalExpired when nobody answered in time.
	ErrApprovalDenied  = errors.New("approval denied")
	ErrApprovalExpired = errors.New("approval expired")
	// ErrClientToolFailed is what Turn.RequestClientTool returns when the
	// client cancelled the tool or it expired.
	ErrClientToolFailed = errors.New("client tool did not return")
)

// Error is a failure with a sentence for the caller and a stable code for
// programs. Kind is one of the sentinel errors above, so errors.Is works.
type Error struct {
	Kind   error
	Code   string // stable, snake_case: "session_not_found", "invalid_request", ...
	Detail string // a sentence that says what went wrong
	// RetryAfter, when set, is how long the caller should wait before
	// trying again (sent as Retry-After).
	RetryAfter time.Duration
	// Violations are the places where a typed input breaks the agent's
	// input schema (contract.go), each with its JSON Pointer; nil else.
	Violations []contract.Violation
}

func (e *Error) Error() string { return e.Detail }

// Unwrap lets errors.Is match the kind.
func (e *Error) Unwrap() error { return e.Kind }

// Errorf builds an *Error.
func Errorf(kind error, code, format string, args ...any) *Error {
	return &Error{Kind: kind, Code: code, Detail: fmt.Sprintf(format, args...)}
}

// AsError returns err as an *Error, wrapping unknown errors as unavailable
// with a generic sentence so that internal details never reach a client.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	switch {
	case errors.Is(err, ErrNotFound):
		return &Error{Kind: ErrNotFound, Code: "not_found", Detail: "Not found"}
	case errors.Is(err, ErrTimeout):
		return &Error{Kind: ErrTimeout, Code: "timeout", Detail: "Response timed out"}
	}
	return &Error{Kind: ErrUnavailable, Code: "internal_error", Detail: "Internal server error"}
}
