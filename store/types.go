package store

import (
	"encoding/json"
	"errors"
	"time"
)

// Errors of asset writes.
var (
	// ErrSessionQuota: the asset would take the session's assets past
	// their quota.
	ErrSessionQuota = errors.New("store: session asset quota exceeded")
	// ErrUserQuota: the asset would take the user's assets past their
	// quota.
	ErrUserQuota = errors.New("store: user asset quota exceeded")
)

// Asset is a stored asset's metadata.
type Asset struct {
	ID        string
	MediaType string
	Size      int64
	// Info is the runtime's own description of the content (JSON); the
	// store keeps it as it is.
	Info      []byte
	CreatedAt string
}

// AssetQuota bounds the bytes of assets; a limit <= 0 is no limit.
type AssetQuota struct {
	Session int64 // all assets of one session
	User    int64 // all assets of one user, across sessions
}

// MaxEvents bounds one response's event log.
const MaxEvents = 10000

// Event is one logged event.
type Event struct {
	Sequence int
	Type     string
	JSON     []byte
}

// ErrEventsTrimmed means the events after the asked position are no longer
// held (the log is bounded, or it expired).
var ErrEventsTrimmed = errors.New("store: those events are no longer held")

// ErrSessionNotFound is returned when a response names a session the user
// does not have.
var ErrSessionNotFound = errors.New("store: session not found")

// Begin is the first step of a response.
type Begin struct {
	User, Session, ResponseID string
	// CreateSession makes a new session for the response (no sessionId
	// given); otherwise the session must exist.
	CreateSession bool
	Receipt       []byte        // the in_progress receipt
	Lease         time.Duration // how long the hold lasts unless renewed
	// Replica is the ID of the replica that runs the response.
	Replica string
	Now     string
	// Webhook is where the response's final receipt is to be posted, as
	// the runtime encodes it ("" for none). The store keeps it with the
	// response, as long as its receipt, and hands it back with the run
	// when the run lapses (Lapsed), so that whoever fails the run sends
	// the final receipt its replica no longer can.
	Webhook string
	// Request is what a claimer needs to run the turn again (the runtime
	// encodes it; nil for none: the run cannot be continued elsewhere).
	// The store keeps it with the response, as long as its receipt, and
	// hands it back to the replica that claims the run (Claimed).
	Request []byte
}

// Commit is one step of a response that changes its receipt: the final one
// (completed, failed, cancelled, ...) or a suspension.
type Commit struct {
	User, Session, ResponseID string
	Receipt                   []byte
	Events                    []Event                    // appended to the response's event log
	Messages                  [][]byte                   // appended to the transcript
	StateDelta                map[string]json.RawMessage // merged into the session state
	// Release gives up the session lease: the response is over.
	Release bool
	// Wait records what a suspended response waits for (an approval or a
	// client tool), written with the requires_action receipt.
	Wait *Wait
	// Replica is the ID of the replica that runs the response (as in Begin).
	Replica string
	// Epoch is the attempt that writes the step: 1 for the first run (0
	// is taken as 1), one more with each ClaimRun. ErrFenced refuses the
	// step of any other epoch than the run's.
	Epoch int
	Now   string
	// CreateSession makes the session with this step, its response's only
	// one: the response made a new session that nobody else can know yet,
	// so it skipped BeginResponse, and this step ends it (Release must be
	// set: ErrCreateWithoutRelease otherwise). The session is made and
	// listed, and the response joins it; no lease is checked or taken.
	// Sent again (its first answer lost), the step is refused as final or
	// written again the same.
	CreateSession bool
}

// ErrCreateWithoutRelease refuses a step that would make its session and
// keep it: such a response begins (BeginResponse) first. Nothing is
// written.
var ErrCreateWithoutRelease = errors.New("store: a step that makes its session must release it")

// ErrLeaseLost means another response took the session while this one ran
// (its lease lapsed); nothing of the step was written.
var ErrLeaseLost = errors.New("store: the response no longer holds its session")

// ErrReceiptFinal means the response's receipt is already final (completed,
// failed, cancelled or denied); nothing was written, since a final receipt
// never changes.
var ErrReceiptFinal = errors.New("store: the response's receipt is already final")

// StoredMessage is a transcript message with its offset in the transcript.
type StoredMessage struct {
	Offset int64
	JSON   []byte
}

// Lapsed is a run whose lease lapsed, with the replica that ran it.
type Lapsed struct {
	User, Session, ResponseID, Replica string
	// Webhook is the run's Begin.Webhook ("" for none). SweepLapsed sets
	// it on the runs it hands to failed and returns; due is asked before
	// it is read, without it.
	Webhook string
	// Epoch is the attempt the run was registered with (1 for the first
	// run): the one a claimer names (Claim.Epoch).
	Epoch int
}

// Claim asks to hand a run to the claiming replica (ClaimRun).
type Claim struct {
	User, Session, ResponseID string
	// Replica and Epoch are the holder and attempt the claimer found the
	// run registered with (Lapsed).
	Replica string
	Epoch   int
	// Claimer is the replica that continues the run, holding its session
	// for Lease.
	Claimer string
	Lease   time.Duration
}

// Claimed is what a claimer needs to continue a run.
type Claimed struct {
	// Epoch is the run's new epoch: the claimer's writes carry it.
	Epoch int
	// Request is the run's Begin.Request (nil: none), Webhook its
	// Begin.Webhook ("" for none).
	Request []byte
	Webhook string
	// Receipt is the run's receipt (not final).
	Receipt []byte
	// LastSequence is the sequence of the last logged event (-1: none):
	// the claimer's events follow it.
	LastSequence int
}

// Wait kinds and statuses.
const (
	WaitApproval   = "approval"
	WaitClientTool = "client_tool"

	WaitPending  = "pending"
	WaitApproved = "approved"
	WaitDenied   = "denied"
	WaitExpired  = "expired"
	WaitDone     = "submitted" // a client tool's output arrived
	WaitCanceled = "cancelled" // the response ended first
)

// Wait is one pending approval or client-tool request.
type Wait struct {
	ID         string
	Kind       string
	ResponseID string
	Session    string
	Status     string
	ExpiresAt  time.Time
	// AfterSequence is the sequence of the requires_action event: whoever
	// answers follows the response from there to its next boundary.
	AfterSequence int
	// Output is a client tool's output (JSON) once submitted.
	Output []byte
	// Replica is the ID of the replica that holds the waiting response:
	// the answer is handed to it on its own control channel.
	Replica string
}

// Errors the store reports; the runtime turns them into its own errors.
var (
	ErrSessionExists = errors.New("store: session already exists")
	ErrSessionBusy   = errors.New("store: a response holds the session")
)

// Session is a stored session.
type Session struct {
	ID        string
	UserID    string
	State     map[string]json.RawMessage
	CreatedAt string
	UpdatedAt string
}

// SecretSize is the length in bytes of a shared secret (an AES-256 key).
const SecretSize = 32

// Errors of ResolveWait.
var (
	// ErrWaitResolved: the wait was already answered, expired or cancelled;
	// the error text ends with its status.
	ErrWaitResolved = errors.New("store: the wait is already resolved")
	// ErrWaitUnavailable: the response that waits is gone (its replica
	// died or it was cancelled).
	ErrWaitUnavailable = errors.New("store: the waiting response is unavailable")
)

// Router breaker states.
const (
	RouterClosed   = "closed"
	RouterOpen     = "open"
	RouterHalfOpen = "half_open"
)

// RouterReceiptsMax bounds the router receipts a store keeps.
const RouterReceiptsMax = 100_000

// RouterBreakerPolicy is how a harness's breaker counts.
type RouterBreakerPolicy struct {
	Failures     int           // failures within Window that open it (at least 1)
	Window       time.Duration // at least a millisecond
	CoolDown     time.Duration // how long it stays open
	TrialTimeout time.Duration // how long a half-open trial holds the harness
}

// RouterOverrides are the owner's changes to the router's config; nil
// means "as configured".
type RouterOverrides struct {
	Choice     *string
	OwnerTurns *string
	// VisitorTurns is who answers visitors' turns.
	VisitorTurns *string
	Fallback     *string
	// DailyTurns is the owner's daily cap of routed turns (narrowing the
	// plan's).
	DailyTurns *int
	// Allowed are the harnesses the owner allows (nil: all).
	Allowed *[]string
	// Paused maps a harness to whether the owner paused it.
	Paused map[string]bool
}

// RouterRung is one rung of the fallback ladder a turn tried, with the
// reason it was skipped or failed ("" when it answered).
type RouterRung struct {
	Name   string `json:"name"`
	Reason string `json:"reason,omitempty"`
}

// RouterReceipt is one routed turn. It never holds text: no message,
// argument, answer or secret.
type RouterReceipt struct {
	At         time.Time    `json:"at"`
	ResponseID string       `json:"responseId"`
	SessionID  string       `json:"sessionId"`
	User       string       `json:"user"`
	Visitor    bool         `json:"visitor"`
	Choice     string       `json:"choice"`
	AnsweredBy string       `json:"answeredBy"`
	Reason     string       `json:"reason,omitempty"`
	Rungs      []RouterRung `json:"rungs,omitempty"`
	WaitMs     int64        `json:"waitMs"`
	TotalMs    int64        `json:"totalMs"`
	CostMicros int64        `json:"costMicros"`
}

// RouterReceiptPage is one page of router receipts.
type RouterReceiptPage struct {
	Receipts []RouterReceipt
	// Next is the cursor of the next page; "" on the last one.
	Next string
}

// UserWindow names one user's fixed-window rate counter: Name for what it
// counts (such as "requests"), at most Limit in each Window.
type UserWindow struct {
	User, Name string
	Limit      int
	Window     time.Duration
}

// ErrFenced means the write came from an attempt of a run that another
// replica has claimed since (its epoch is not the run's): nothing of it was
// written. The attempt must stop; the run goes on elsewhere.
var ErrFenced = errors.New("store: the run was claimed by another replica (stale epoch)")
