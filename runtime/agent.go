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
	// Attempt is 1 for the first run of the turn and one more each time
	// another replica runs it again after the one running it was lost
	// (an agent whose config says onReplicaLoss: rerun). A turn handed
	// off on shutdown, or continued by the answer to its wait, goes on as
	// the same attempt (attempts.go).
	Attempt int

	// Input is the user's message as text: the text parts of the input
	// joined with newlines.
	Input string
	// Content is the input as content parts: text, and media that the
	// runtime resolved from asset references. Never nil for a text input
	// (one text part).
	Content []ContentInput
	// State is the session state when the turn started (top-level key to
	// JSON value).
	State map[string]json.RawMessage
	// Metadata is the caller's metadata object (never identity).
	Metadata json.RawMessage
	// Message is what the protocol message of this turn carried beside
	// its parts (A2A: IDs, references, extensions, metadata). Nil when
	// the transport has no such message.
	Message *TurnMessage
	// History reads the newest messages of the session transcript, oldest
	// first, at most limit of them, compaction items left out. It costs a
	// store round trip, so agents that need no history never pay for it.
	History func(ctx context.Context, limit int) ([]Message, error)
	// Compaction is the session's compaction (compact.go): the newest
	// summary of older messages and the messages after it, and saving a
	// new one. Set by the runtime.
	Compaction *Compaction

	// ClientTools are the tools the client offers for this turn (AG-UI
	// frontend tools), a JSON array of {name, description?, parameters};
	// call one with RequestClientTool. Nil when none.
	ClientTools json.RawMessage
	// Context is extra context the client sent (AG-UI), a JSON array of
	// {description, value}. Nil when none.
	Context json.RawMessage

	// RequestApproval suspends the turn until a human approves or denies
	// the action, from any transport and any replica. It returns
	// ErrApprovalDenied when denied (the agent should then stop: the
	// response is recorded as denied) and ErrApprovalExpired when nobody
	// answered in time. Set by the runtime.
	RequestApproval func(ctx context.Context, req ApprovalRequest) error
	// RequestClientTool suspends the turn until the client runs the named
	// tool and posts its output, which it returns. Set by the runtime.
	RequestClientTool func(ctx context.Context, req ClientToolRequest) (json.RawMessage, error)

	// Journal is the turn's resume points (journal.go): a backend that runs
	// the turn in steps records each completed one, and replays those an
	// earlier attempt recorded. Nil (recalls and records nothing) when the
	// turn cannot run again. Set by the runtime.
	Journal *Journal

	// Steers is the turn's inbox of steering messages (steer_inbox.go):
	// nil unless the agent is Steerable. Set by the runtime.
	Steers *Steers
}

// ContentInput is one part of a turn's input: text, structured data, media
// held as a session asset, or a file by URL.
//
//	{"type":"text","text":"..."}
//	{"type":"data","data":<any JSON>}
//	{"type":"image"|"audio"|"video"|"file","assetId":...,"mediaType":...,"sizeBytes":...,"name"?:...}
//	{"type":"file","url":...,"mediaType"?:...,"name"?:...}   (never fetched by the server)
type ContentInput struct {
	Type      string          `json:"type"`                // "text", "data", or a media kind: "image", "audio", "video", "file"
	Text      string          `json:"text,omitempty"`      // for text
	Value     json.RawMessage `json:"data,omitempty"`      // for data: the JSON value
	AssetID   string          `json:"assetId,omitempty"`   // for media: the session asset
	URL       string          `json:"url,omitempty"`       // for a file by URL
	MediaType string          `json:"mediaType,omitempty"` // for media: as inspected, e.g. "image/png"; for a URL: as the client said
	SizeBytes int64           `json:"sizeBytes,omitempty"` // for media
	Name      string          `json:"name,omitempty"`      // for media and URLs: the file name the client gave, if any
	// Data reads the asset's bytes (media held as an asset only); nil
	// otherwise.
	Data func(ctx context.Context) ([]byte, error) `json:"-"`
}

// ApprovalRequest asks a human to approve an action.
type ApprovalRequest struct {
	Action    string          // a label for what would happen, e.g. "send_email"
	Message   string          // a sentence for the human
	Arguments json.RawMessage // the action's arguments (JSON object), shown to the human
}

// ClientToolRequest asks the client to run one of its tools.
type ClientToolRequest struct {
	Name      string          // the tool, as the client knows it
	Arguments json.RawMessage // a JSON object
	CallID    string          // the agent's own call ID, if it has one
}

// AgentFunc adapts a function to the Agent interface.
type AgentFunc func(ctx context.Context, turn *Turn, emit Emit) error

// Run calls f.
func (f AgentFunc) Run(ctx context.Context, turn *Turn, emit Emit) error { return f(ctx, turn, emit) }
