package store

import (
	"context"
	"encoding/json"
	"time"
)

// Store is everything harnest keeps: the core's part (the slices from
// Sessions to Outbox, in this file, which the runtime takes) and one slice
// per feature, each in a file of its own that names its owner. Each
// package takes only the slices it calls (server, the composition root,
// hands each the whole store), and both implementations implement all of
// Store (memstore and redisstore check it when they compile). Each method
// is one operation with the same meaning on every implementation; the
// contract suite (storetest) states that meaning as tests. IDs are opaque
// strings: an implementation must keep any user, session or response ID
// from naming another's data.
//
// Errors: the Err* values of this package (errors.go; tested with
// errors.Is) report refusals; any other error means the store could not
// be reached or answered wrongly, and the caller reports it as the store
// being unavailable.
//
// Time: every call is bounded by the implementation itself (the Redis
// store's Timeout bounds each dial, read, write and pool wait; the
// in-process store waits on nothing but its own locks), so a caller needs
// no deadline of its own for a call to end; its context's deadline or
// cancellation, when it has one, ends the call sooner.
type Store interface {
	// The core's part (runtime).
	Sessions
	Transcripts
	Responses
	Events
	Runs
	Waits
	Assets
	Messaging
	Outbox
	Replicas
	SessionStatus // session_responses.go: runtime's session status
	Queues        // queue.go: runtime's queues of responses on busy sessions
	Steers        // steers.go: runtime's steers kept for running responses

	// The slices beside it, each with its owner.
	Secrets           // secrets.go: runtime, a2a and relay
	Limits            // limits.go: runtime's per-user limits of turns
	UserWindows       // limits.go: internal/httpapi's rate limiter
	Tasks             // tasks.go: a2a
	PushConfigs       // pushconfigs.go: a2a
	Threads           // threads.go: agui
	MCPSessions       // mcpsessions.go: mcpapi
	Relay             // relay.go: relay
	RelayTools        // relay_tools.go: relay
	Router            // router.go: backend/router
	Journals          // journal.go: runtime's resume points of durable turns
	Attempts          // attempts.go: runtime's attempt budget of durable turns
	Schedules         // schedules.go: schedule
	TriggerDeliveries // triggers.go: trigger
	EvalRuns          // evals.go: eval (harnest eval and its route)
	Compactions       // compactions.go: runtime's compaction of long sessions
	Memory            // memory.go: memoryapi and the model backend's memory tools
	ResponseRequests  // response_requests.go: openaiapi
	UsageCounters     // usage.go: runtime's counters and budgets, usageapi

	// Describe says which store this is, without credentials (for the
	// start-up banner and logs).
	Describe() string
	// Ping checks that the store answers (readiness).
	Ping(ctx context.Context) error
	// Close releases the store's connections and goroutines. Every call
	// fails from then on (a closed store reads and writes nothing).
	Close() error
}

// Sessions are a user's sessions and their shallow JSON state.
type Sessions interface {
	// CreateSession makes a session; ErrSessionExists when the user has
	// one with that ID.
	CreateSession(ctx context.Context, user, id string, state map[string]json.RawMessage, now string) error
	GetSession(ctx context.Context, user, id string) (sess Session, found bool, err error)
	// SessionExists reports whether the user has the session.
	SessionExists(ctx context.Context, user, session string) (bool, error)
	// ListSessions returns up to limit of the user's sessions with IDs
	// after after, in ID order: O(log N + limit).
	ListSessions(ctx context.Context, user, after string, limit int) ([]Session, error)
	// PatchState merges delta into the top level of the state.
	PatchState(ctx context.Context, user, id string, delta map[string]json.RawMessage, now string) (Session, bool, error)
	// DeleteSession removes the session with its transcript, responses,
	// receipts, event logs, waits (GetWait no longer finds them) and
	// assets (their bytes no longer count). ErrSessionBusy refuses it
	// while a response holds the session.
	DeleteSession(ctx context.Context, user, id string) (found bool, err error)
}

// Transcripts are a session's messages, each at its offset.
type Transcripts interface {
	// Messages reads up to limit messages from offset from, in order:
	// O(log N + limit) whatever the transcript's length.
	Messages(ctx context.Context, user, session string, from int64, limit int) ([]StoredMessage, error)
	// LastMessages reads the newest limit messages, oldest first.
	LastMessages(ctx context.Context, user, session string, limit int) ([]StoredMessage, error)
}

// Responses are a response's receipt and the session lease it holds.
type Responses interface {
	// BeginResponse takes the session's lease, writes the in_progress
	// receipt, registers the run and returns the session state.
	// ErrSessionNotFound or ErrSessionBusy (another response holds the
	// session, or responses are queued for it: Queues) or
	// ErrResponseExists (the session has a response with that ID: a
	// receipt is never overwritten) refuse it; nothing is kept then.
	BeginResponse(ctx context.Context, b Begin) (map[string]json.RawMessage, error)
	// CommitResponse writes one step atomically: receipt, events,
	// transcript messages, state delta, wait, and the lease's release.
	// ErrFenced: the run's epoch is not c.Epoch (another replica claimed
	// it); ErrLeaseLost: another response holds the session, or the
	// session is gone (deleted once the lease lapsed: it is not made
	// again); ErrReceiptFinal: the receipt is already final. Nothing is
	// written then. With c.CreateSession a response's only step also makes its
	// session, as BeginResponse would have (see Commit).
	CommitResponse(ctx context.Context, c Commit) error
	// ReplaceReceipt overwrites a receipt that is not final
	// (ErrReceiptFinal otherwise), written by the run's attempt epoch
	// (ErrFenced when the run's epoch is another; see Epochs).
	ReplaceReceipt(ctx context.Context, user, session, responseID string, epoch int, receipt []byte) error
	// RenewLease extends the lease the response holds, or takes it again
	// when it lapsed, nobody took it, the receipt is not final and the
	// session still exists. false: the response does not hold the session.
	// ErrFenced (and nothing renewed or registered): the run's epoch is
	// not epoch.
	RenewLease(ctx context.Context, user, session, responseID, replica string, epoch int, lease time.Duration) (bool, error)
	// Receipt reads a response's receipt.
	Receipt(ctx context.Context, user, session, responseID string) ([]byte, bool, error)
}

// Events are a response's bounded, resumable event log.
type Events interface {
	// AppendEvents logs a batch of consecutive events, written by the
	// run's attempt epoch, and signals the response's listeners. ErrFenced
	// (nothing logged): the run's epoch is not epoch.
	AppendEvents(ctx context.Context, user, session, responseID string, epoch int, events []Event) error
	// EventsAfter reads up to limit events (limit < 1: all it holds)
	// after sequence after (-1: from the start), in order; the limit counts
	// events, however they were batched. ErrEventsTrimmed when those are
	// no longer held.
	EventsAfter(ctx context.Context, user, session, responseID string, after, limit int) ([]Event, error)
}

// Runs are the registry of responses that hold a lease, swept for runs
// whose replica died.
type Runs interface {
	// SweepLapsed finds up to limit runs whose lease lapsed before now. A
	// run for which due returns false is left for later. For the others,
	// failed(run, receipt) gives the receipt to record in place of one that
	// is not final (nil keeps it); failed is never asked about a final
	// receipt or a missing one, which stay as they are. The run is then
	// forgotten. It returns the runs it failed, each with its webhook
	// (Begin.Webhook), which failed is given too.
	SweepLapsed(ctx context.Context, now time.Time, limit int, due func(Lapsed) bool, failed func(Lapsed, []byte) []byte) ([]Lapsed, error)
	// RunsOf returns up to limit registered runs of replica (each with
	// the epoch it was registered with): the runs of a replica whose
	// liveness lapsed (Replicas), due at once whatever their lease.
	RunsOf(ctx context.Context, replica string, limit int) ([]Lapsed, error)
	// ClaimRun hands a run to another replica, atomically: when the run's
	// epoch is still c.Epoch and its receipt is not final, its epoch
	// becomes c.Epoch+1, the response holds its session for c.Lease and
	// the run is registered under c.Claimer; every write of an older
	// epoch is refused from then on (ErrFenced). It returns what the
	// claimer needs to continue the run. ErrFenced: the epoch moved on
	// (another replica claimed it first); ErrReceiptFinal: the receipt is
	// final or gone; ErrSessionBusy: another response holds the session
	// (the run lost it: SweepLapsed fails it). The run registered as
	// c.Replica at c.Epoch is forgotten on ErrFenced and ErrReceiptFinal;
	// nothing else changes on any error.
	ClaimRun(ctx context.Context, c Claim) (Claimed, error)
}

// Waits are what suspended responses wait for: approvals and client tools.
type Waits interface {
	// GetWait finds a wait by its ID alone (the user's index).
	GetWait(ctx context.Context, user, id string) (Wait, bool, error)
	// ReadWait reads a wait of a known session.
	ReadWait(ctx context.Context, user, session, id string) (Wait, bool, error)
	// ResolveWait changes a pending wait's status exactly once; current is
	// the status it had (not pending: nothing changed). The answer is
	// stored whether or not a replica holds the response (a suspended
	// turn lives in the store only: whoever answers may claim its run);
	// ErrWaitUnavailable refuses it, changing nothing, only when the
	// response is over (its receipt final or gone). The returned wait's
	// Epoch is the run's epoch when it was answered (the one to claim).
	ResolveWait(ctx context.Context, user, id, kind, status string, output []byte, now time.Time) (w Wait, current string, err error)
	// FinishWait sets a pending wait's final status (its response ended
	// it: expired or cancelled), written by the run's attempt epoch:
	// ErrFenced, and nothing changed, when the run's epoch is another.
	FinishWait(ctx context.Context, user, session, responseID, id, status string, epoch int) error
}

// Assets are a session's stored files, within quotas.
type Assets interface {
	// PutAsset stores an asset, replacing one of the same ID (whose bytes
	// then stop counting); ErrUserQuota, ErrSessionNotFound or
	// ErrSessionQuota refuse it, checked in that order, and keep what was
	// stored.
	PutAsset(ctx context.Context, user, session string, a Asset, data []byte, q AssetQuota) error
	GetAsset(ctx context.Context, user, session, id string) (Asset, bool, error)
	// ReadAsset reads up to length bytes from offset (length < 0: to the
	// end), with the asset's metadata; a negative offset is an error.
	ReadAsset(ctx context.Context, user, session, id string, offset, length int64) ([]byte, Asset, bool, error)
	DeleteAsset(ctx context.Context, user, session, id string) (found bool, err error)
	// AssetUsage reports the bytes of the session's assets and of all the
	// user's assets.
	AssetUsage(ctx context.Context, user, session string) (sessionBytes, userBytes int64, err error)
}

// Messaging carries control messages between replicas and wakes followers
// of a response's events.
type Messaging interface {
	// StartHub subscribes a replica: onControl runs (on the hub's own
	// goroutine) for every control message sent to every replica or to
	// this one, until the hub is closed.
	StartHub(ctx context.Context, replica string, onControl func(payload string)) (Hub, error)
	// PublishControl sends a control message to every replica.
	PublishControl(ctx context.Context, payload string) error
	// SendControl sends a control message to one replica. gone is true
	// when the store can tell that no such replica listens.
	SendControl(ctx context.Context, replica, payload string) (gone bool, err error)
}

// Hub is one replica's subscription.
type Hub interface {
	// ListenEvents signals whenever new events of the response are logged
	// (or its receipt changes), until stop is called. With responseID ""
	// it signals whenever a response of the session begins
	// (BeginResponse): a session's stream waits so for its next response. Followers share the
	// hub: an idle follower costs a channel.
	ListenEvents(ctx context.Context, user, session, responseID string) (signal <-chan struct{}, stop func(), err error)
	Close() error
}
