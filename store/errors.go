package store

import "errors"

// The store's refusals, grouped by the slice whose operations report them.
// Callers test them with errors.Is and map them once onto their own errors
// (the runtime onto runtime/errors.go's, each door onto its wire). Any
// other error of a store operation means the store could not be reached
// or answered wrongly.

// Sessions and responses (Sessions, Responses, Events).
var (
	// ErrSessionExists: the user already has a session with that ID.
	ErrSessionExists = errors.New("store: session already exists")
	// ErrSessionBusy: a response holds the session.
	ErrSessionBusy = errors.New("store: a response holds the session")
	// ErrResponseExists: BeginResponse names a response the session has
	// already (a caller that chose the ID itself, such as a schedule's
	// fire, begins it twice); nothing was written, so its receipt, final
	// or not, stays as it was.
	ErrResponseExists = errors.New("store: the session already has a response with that ID")
	// ErrSessionNotFound: a response (or an asset) names a session the
	// user does not have.
	ErrSessionNotFound = errors.New("store: session not found")
	// ErrCreateWithoutRelease refuses a step that would make its session
	// and keep it: such a response begins (BeginResponse) first. Nothing
	// is written.
	ErrCreateWithoutRelease = errors.New("store: a step that makes its session must release it")
	// ErrLeaseLost: another response took the session while this one ran
	// (its lease lapsed); nothing of the step was written.
	ErrLeaseLost = errors.New("store: the response no longer holds its session")
	// ErrFenced: the write came from an attempt of a run that another
	// replica has claimed since (its epoch is not the run's); nothing of
	// it was written. The attempt must stop; the run goes on elsewhere.
	ErrFenced = errors.New("store: the run was claimed by another replica (stale epoch)")
	// ErrReceiptFinal: the response's receipt is already final
	// (completed, failed, cancelled or denied); nothing was written, since
	// a final receipt never changes.
	ErrReceiptFinal = errors.New("store: the response's receipt is already final")
	// ErrEventsTrimmed: the events after the asked position are no longer
	// held (the log is bounded, or it expired).
	ErrEventsTrimmed = errors.New("store: those events are no longer held")
)

// Waits (ResolveWait).
var (
	// ErrWaitResolved: the wait was already answered, expired or
	// cancelled; the error text ends with its status.
	ErrWaitResolved = errors.New("store: the wait is already resolved")
	// ErrWaitUnavailable: the response that waited is over (its receipt
	// is final or gone); a response held by no replica is not (see
	// Waits.ResolveWait).
	ErrWaitUnavailable = errors.New("store: the waiting response is unavailable")
)

// Assets (PutAsset).
var (
	// ErrSessionQuota: the asset would take the session's assets past
	// their quota.
	ErrSessionQuota = errors.New("store: session asset quota exceeded")
	// ErrUserQuota: the asset would take the user's assets past their
	// quota.
	ErrUserQuota = errors.New("store: user asset quota exceeded")
)

// Outbox (EnqueueDelivery).
var (
	// ErrOutboxFull: the user has as many deliveries waiting as the
	// outbox keeps for one user; nothing was enqueued.
	ErrOutboxFull = errors.New("store: the user's outbox is full")
)

// Tasks and PushConfigs (the A2A door's).
var (
	// ErrTaskContext: a put named another context than the stored task's
	// (a task never moves between contexts); nothing was written.
	ErrTaskContext = errors.New("store: the task belongs to another context")
	// ErrPushConfigsFull: the task has as many push configs as a task may
	// have; nothing was written.
	ErrPushConfigsFull = errors.New("store: the task has too many push notification configs")
)

// Relay (the relay's pairing, participants and inboxes).
var (
	ErrPairingInvalid    = errors.New("store: the pairing code is unknown, used or expired")
	ErrPairingMismatch   = errors.New("store: the card does not match the pairing code")
	ErrParticipantGone   = errors.New("store: the participant is gone")
	ErrParticipantPaused = errors.New("store: the participant is paused")
	ErrInboxFull         = errors.New("store: the participant has too many pending items")
	ErrRelayItemUnknown  = errors.New("store: the participant has no such relay item")
	ErrRelayItemAnswered = errors.New("store: the relay item is already answered")
	ErrRelayItemExpired  = errors.New("store: the relay item expired or was withdrawn")
)

// RelayTools (the relay's tools at home).
var (
	ErrRelayRunSpent        = errors.New("store: the run has made all the tool calls it may")
	ErrRelayApprovalUnknown = errors.New("store: no such tool call approval")
	ErrRelayApprovalDecided = errors.New("store: the tool call approval is already decided")
)

// Schedules.
var (
	// ErrScheduleExists: the user already has a schedule with that ID.
	ErrScheduleExists = errors.New("store: schedule already exists")
	// ErrScheduleLimit: the user has as many schedules as allowed.
	ErrScheduleLimit = errors.New("store: the user has the most schedules allowed")
	// ErrScheduleNotFound: the user has no schedule with that ID.
	ErrScheduleNotFound = errors.New("store: schedule not found")
	// ErrScheduleChanged: the schedule changed (or fired) since it was
	// read; read it again and retry.
	ErrScheduleChanged = errors.New("store: the schedule changed since it was read")
)
