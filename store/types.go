package store

import (
	"encoding/json"
	"time"
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
	// SteersLeft, when set on a step that releases, is set to whether
	// steers are kept for the response that nobody took (Steers), read in
	// the same operation: the runtime takes them only then, so a turn
	// that was never steered costs no extra round trip.
	SteersLeft *bool
	// Usage, on a step that releases, is the turn's usage (usage.go): it
	// is added to the user's and everyone's counters of UsageDay (UTC,
	// UsageDate) when the step is written, and only then, in the same
	// round trip (one script with the step where one server holds every
	// key; on a Cluster a call of its own after it). A negative count is
	// refused (ErrUsageNegative) and nothing is written.
	Usage    []UsageLine
	UsageDay string
}

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
	// Attempt is the run's attempts so far (1 for a run never run again
	// after a loss; see Attempts): a claim moves the epoch on, not this.
	Attempt int
	// HandedOff: the holder handed the run off (Attempts.MarkHandOff)
	// rather than being lost; the claim cleared the mark.
	HandedOff bool
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
	// Epoch is the run's epoch when the wait was read or answered (1 for
	// the first attempt): the one a claimer names (Claim.Epoch). Commit
	// ignores it.
	Epoch int
}

// Session is a stored session.
type Session struct {
	ID        string
	UserID    string
	State     map[string]json.RawMessage
	CreatedAt string
	UpdatedAt string
}
