package store

import (
	"context"
	"time"
)

// Relay keeps the state of the relay, through which outside agents (the
// participants) answer turns: pairing codes, participants and their session
// tokens, each participant's inbox of items (questions) with their replies,
// each owner's feed of notices and stage items, rate buckets, and the
// wake-ups that let a waiting long poll sleep without reading the store.
// Owner: the relay (package relay), with RelayTools.
//
// Everything but the two entry points a secret opens (a pairing code, a
// session token) belongs to an owner: the user ID of the owner who created
// the code. An owner's calls see and change only that owner's participants,
// items, feed and buckets, whatever IDs they pass.
//
// The store never sees a secret: codes and session tokens arrive as the
// caller's hashes of them, used as opaque keys. Participant and item IDs
// are the caller's. Times are kept to the millisecond, in UTC. Every
// operation that depends on the time takes it (now): the caller's clock
// decides what has expired; the store drops expired state by its own clock
// some time after (a TTL in Redis).
type Relay interface {
	// CreatePairingCode stores a single-use pairing code until
	// c.ExpiresAt.
	CreatePairingCode(ctx context.Context, c PairingCode, now time.Time) error
	// ExchangePairingCode consumes a live code whose name and kind match
	// the card and creates a participant of the code's owner with its
	// session token. ErrPairingInvalid: the code is unknown, used or
	// expired; ErrPairingMismatch: the card differs (the code is kept).
	ExchangePairingCode(ctx context.Context, p Pairing) (RelayParticipant, error)
	// ParticipantByToken finds the live participant a session token (by
	// its hash) belongs to.
	ParticipantByToken(ctx context.Context, tokenHash string, now time.Time) (RelayParticipant, bool, error)
	// GetParticipant reads one of owner's live participants.
	GetParticipant(ctx context.Context, owner, id string, now time.Time) (RelayParticipant, bool, error)
	// ListParticipants lists owner's live participants, oldest pairing
	// first (then by ID).
	ListParticipants(ctx context.Context, owner string, now time.Time) ([]RelayParticipant, error)
	// SetParticipantState pauses or resumes (RelayPaused, RelayActive) one
	// of owner's live participants and wakes its inbox's listeners; false
	// when it is gone.
	SetParticipantState(ctx context.Context, owner, id, state string, now time.Time) (bool, error)
	// DisconnectParticipant removes one of owner's live participants with
	// its session token and inbox, and wakes its inbox's listeners; false
	// when it is gone.
	DisconnectParticipant(ctx context.Context, owner, id string, now time.Time) (bool, error)

	// EnqueueRelayItem puts a pending item (it.ID, it.Participant, it.Text,
	// it.AskedAt as now, it.DeadlineAt) into the inbox of one of owner's
	// participants and wakes the inbox's listeners. ErrParticipantGone,
	// ErrParticipantPaused, or ErrInboxFull (maxPending unexpired items
	// wait already) refuse it.
	EnqueueRelayItem(ctx context.Context, owner string, it RelayItem, maxPending int) error
	// GetRelayItem reads one of owner's items (kept an hour past its
	// deadline).
	GetRelayItem(ctx context.Context, owner, id string) (RelayItem, bool, error)
	// PendingRelayItems lists the pending items of one of owner's
	// participants whose deadline is after now, oldest first.
	PendingRelayItems(ctx context.Context, owner, participant string, now time.Time) ([]RelayItem, error)
	// ReplyRelayItem answers a pending item of the participant once and
	// wakes the item's listeners. ErrParticipantGone, ErrParticipantPaused,
	// ErrRelayItemUnknown (not this participant's), ErrRelayItemAnswered or
	// ErrRelayItemExpired (deadline passed, or cancelled) refuse it.
	ReplyRelayItem(ctx context.Context, owner, participant, id, reply string, now time.Time) error
	// CancelRelayItem withdraws a pending item from the inbox (its turn
	// ended) and wakes the item's listeners; an answered or unknown item
	// is left as it is.
	CancelRelayItem(ctx context.Context, owner, participant, id string) error

	// TakeRelayBucket counts one request in a fixed-window rate bucket
	// shared by every replica. Windows start at whole multiples of
	// b.Window since the Unix epoch (a 24-hour window is a UTC day). When
	// the bucket is spent it returns false and the time until the window
	// ends.
	TakeRelayBucket(ctx context.Context, b RelayBucket, now time.Time) (ok bool, retryAfter time.Duration, err error)
	// SpaceRelaySay allows one "say" stage item per gap for one of owner's
	// participants; otherwise it returns false and the wait.
	SpaceRelaySay(ctx context.Context, owner, participant string, gap time.Duration, now time.Time) (ok bool, wait time.Duration, err error)

	// AppendRelayFeed appends an entry to owner's feed (the newest
	// RelayFeedMax are kept), wakes the feed's listeners and returns the
	// entry's ID.
	AppendRelayFeed(ctx context.Context, owner string, e RelayFeedEntry) (id string, err error)
	// NewestRelayFeed returns the newest n entries of owner's feed, newest
	// first.
	NewestRelayFeed(ctx context.Context, owner string, n int) ([]RelayFeedEntry, error)
	// RelayFeedAfter returns up to n entries of owner's feed whose ID is
	// after the ID after ("0-0": from the start), oldest first.
	RelayFeedAfter(ctx context.Context, owner, after string, n int) ([]RelayFeedEntry, error)
	// LastRelayFeedID is the ID of the newest entry of owner's feed, or
	// "0-0" when it is empty.
	LastRelayFeedID(ctx context.Context, owner string) (string, error)

	// ListenRelayInbox signals whenever an item is enqueued for one of
	// owner's participants or the participant is paused, resumed or
	// disconnected, on any replica, until stop is called. A listener costs
	// a channel: it makes no store reads while nothing happens. A wake-up
	// that may have been lost (a broken connection to the store) signals
	// every listener. A signal means "read again": a listener may also be
	// signalled for nothing it waits for (another owner's participant of
	// the same ID, say), never left unsignalled for something it does.
	ListenRelayInbox(ctx context.Context, owner, participant string) (signal <-chan struct{}, stop func(), err error)
	// ListenRelayItem signals whenever one of owner's items is answered or
	// cancelled, as ListenRelayInbox does.
	ListenRelayItem(ctx context.Context, owner, id string) (signal <-chan struct{}, stop func(), err error)
	// ListenRelayFeed signals whenever an entry is appended to owner's
	// feed, as ListenRelayInbox does.
	ListenRelayFeed(ctx context.Context, owner string) (signal <-chan struct{}, stop func(), err error)
}

// Relay participant states.
const (
	RelayActive = "active"
	RelayPaused = "paused"
)

// Relay item states.
const (
	RelayItemPending   = "pending"
	RelayItemAnswered  = "answered"
	RelayItemCancelled = "cancelled"
)

// RelayFeedMax is how many entries of an owner's feed are kept at least
// (Redis may keep a few more).
const RelayFeedMax = 500

// PairingCode is a single-use code an owner created to pair one outside
// agent, whose card must say Name and Kind.
type PairingCode struct {
	Hash      string // the caller's hash of the code: the store's key
	Owner     string
	Name      string
	Kind      string
	ExpiresAt time.Time
}

// Pairing is the exchange of a pairing code for a new participant.
type Pairing struct {
	CodeHash string
	// The outside agent's card: Name and Kind must match the code's.
	Name, Kind, Description string
	ParticipantID           string // the new participant's ID
	TokenHash               string // the caller's hash of the new session token
	// Look is the look the card's alive extension gave, already
	// validated by the caller; zero when it had none (or an invalid one).
	Look RelayLook
	Now  time.Time
	// TTL is how long the participant and its session token last.
	TTL time.Duration
}

// RelayParticipant is one paired outside agent of Owner's.
type RelayParticipant struct {
	ID          string
	Owner       string // the user ID of the owner who created the pairing code
	Name        string
	Kind        string
	Description string
	State       string // RelayActive or RelayPaused
	PairedAt    time.Time
	ExpiresAt   time.Time
	TokenHash   string // the hash of its session token
	// Look is how it shows itself (its card's alive extension); zero for
	// the standard outside-agent face.
	Look RelayLook
}

// RelayLook is the look of a participant, from the alive extension of the
// card it paired with: a house look, two colors (#rgb or #rrggbb) and a
// display name. Any field may be empty.
type RelayLook struct {
	Look        string
	Line        string
	Background  string
	DisplayName string
}

// RelayItem is one question in a participant's inbox, and its reply.
type RelayItem struct {
	ID          string
	Participant string
	Text        string
	AskedAt     time.Time
	DeadlineAt  time.Time
	State       string // RelayItemPending, RelayItemAnswered or RelayItemCancelled
	Reply       string
}

// RelayBucket names a fixed-window rate bucket: Owner's (or, with Owner "",
// the server's), Name for what it limits, Subject for whom.
type RelayBucket struct {
	Owner, Name, Subject string
	Limit                int
	Window               time.Duration
}

// RelayFeedEntry is one notice or stage item in an owner's feed.
type RelayFeedEntry struct {
	// ID is the store's: "<ms>-<seq>", two decimal numbers, increasing.
	ID          string
	Participant string
	Name        string
	Kind        string
	Type        string // "notice" or "stage"
	Text        string // a notice's text
	Item        []byte // a stage item's JSON
	At          string // when it was sent, as the caller wrote it
}
