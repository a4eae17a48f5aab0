package runtime

import (
	"context"
	"encoding/json"
)

// Agent is a backend: it runs one turn of a session. It streams what it does
// through emit and returns when the turn is over. A returned error fails the
// turn; the caller's context is cancelled when the turn is cancelled or
// times out, and the agent must then return promptly. An agent never writes
// receipts or transcripts: the runtime does, from what was emitted.
type Agent interface {
	Run(ctx context.Context, turn *Turn, emit Emit) error
}

// Emit hands one event to the runtime. Only the payload fields and Type need
// to be set; the runtime numbers the event. Emit returns an error when the
// response is over (cancelled or timed out): the agent should stop.
type Emit func(Event) error

// Turn is everything an agent sees of one response.
type Turn struct {
	ResponseID string
	SessionID  string
	UserID     string

	// Input is the user's message for text agents.
	Input string
	// State is the session state when the turn started (top-level key to
	// JSON value).
	State map[string]json.RawMessage
	// Metadata is the caller's metadata object (never identity).
	Metadata json.RawMessage
	// History reads the newest messages of the session transcript, oldest
	// first, at most limit of them. It costs a store round trip, so agents
	// that need no history never pay for it.
	History func(ctx context.Context, limit int) ([]Message, error)
}

// AgentFunc adapts a function to the Agent interface.
type AgentFunc func(ctx context.Context, turn *Turn, emit Emit) error

// Run calls f.
func (f AgentFunc) Run(ctx context.Context, turn *Turn, emit Emit) error { return f(ctx, turn, emit) }
