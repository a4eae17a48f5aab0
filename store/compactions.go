package store

import (
	"context"
	"errors"
)

// Compactions are a session's compaction state (runtime's compaction of
// long sessions, runtime/compact.go): what the runtime keeps to build an
// agent's prompt from a summary of older messages and the messages after
// them, and the compaction items it adds to the transcript. The state is
// the runtime's JSON; the store keeps it as it is, with the session, and
// removes it with the session.
type Compactions interface {
	// CompactionState reads the session's compaction state (nil when it
	// has none, or there is no such session) and, when last > 0, its
	// newest last transcript messages as LastMessages reads them: one
	// round trip for what a turn's prompt is built from.
	CompactionState(ctx context.Context, user, session string, last int) (state []byte, tail []StoredMessage, err error)
	// SaveCompaction replaces the session's compaction state and, when
	// c.Item is set, appends it to the session's transcript, in one
	// operation; it returns the item's offset (-1 without an item).
	// Refusals (nothing written): ErrSessionNotFound; ErrSessionBusy when
	// c.Holder is "" and a response holds the session; ErrLeaseLost when
	// c.Holder is set and does not hold the session; ErrCompactionChanged
	// when the state is no longer c.Prev.
	SaveCompaction(ctx context.Context, c CompactionSave) (offset int64, err error)
}

// CompactionSave is one write of a session's compaction state.
type CompactionSave struct {
	User, Session string
	// Holder is the response whose turn writes (it must hold the
	// session's lease), or "" for a write outside any turn (no response
	// may hold the session then).
	Holder string
	// Prev is the state the writer read (nil: none): the write is refused
	// when another was made since.
	Prev []byte
	// State is the new state (not empty).
	State []byte
	// Item, when set, is a transcript message appended after the others.
	Item []byte
	Now  string
}

// ErrCompactionChanged: the session's compaction state is no longer the
// one the writer read (another compaction was saved since); nothing was
// written.
var ErrCompactionChanged = errors.New("store: the session's compaction state changed since it was read")
