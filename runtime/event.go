package runtime

import "encoding/json"

// Event types of the portable activity stream. Every transport re-encodes
// this one stream; none invents its own.
const (
	EventCreated        = "response.created"
	EventTextDelta      = "response.text.delta"
	EventThinkingDelta  = "response.thinking.delta"
	EventAgentActivity  = "response.agent_activity"
	EventAgentMetadata  = "response.agent_metadata"
	EventDecisionResult = "response.decision_result"
	EventToolCall       = "response.tool_call"
	EventToolResult     = "response.tool_result"
	EventStateDelta     = "response.state_delta"
	EventArtifact       = "response.artifact"
	EventApproval       = "approval.requested"
	// EventApprovalResolved says how a human answered an approval when the
	// answer was more than a bare approve or deny (approval_resolved.go).
	EventApprovalResolved = "approval.resolved"
	EventClientTool       = "client_tool.requested"
	EventInProgress       = "response.in_progress"
	EventCompleted        = "response.completed"
	EventError            = "error"
	// EventRetracted withdraws what an interrupted attempt of the response
	// streamed (its replica was lost and another one runs the turn again):
	// the events of sequences Retracted.FromSequence to ToSequence, and
	// the text they added, are no longer part of the answer. An
	// EventAgentActivity with activity "attempt" naming the new attempt
	// follows it.
	EventRetracted = "response.retracted"
	// EventSteered: the turn took a steering message (steer.go), which
	// follows in the transcript the answer's text emitted before it.
	EventSteered = "response.steered"
)

// Retraction is the payload of response.retracted.
type Retraction struct {
	FromSequence int    `json:"fromSequence"`
	ToSequence   int    `json:"toSequence"`
	Text         string `json:"text"`
	// Attempt is the attempt that starts after it (2 for the first rerun).
	Attempt int `json:"attempt"`
}

// Event is one frame of a response's event stream. Backends fill the payload
// fields for their kind of event; the runtime sets Sequence, ResponseID and
// SessionID before any transport sees it. Optional fields are omitted from
// JSON when empty.
type Event struct {
	Type       string `json:"type"`
	Sequence   int    `json:"sequence"`
	ResponseID string `json:"responseId"`
	SessionID  string `json:"sessionId"`

	// text, thinking and state deltas: Delta is a string for text and
	// thinking; StateDelta is the shallow object of a state delta.
	Delta      string                     `json:"delta,omitempty"`
	StateDelta map[string]json.RawMessage `json:"-"`
	Agent      string                     `json:"agent,omitempty"`

	// agent_activity
	Activity string `json:"activity,omitempty"`
	Target   string `json:"target,omitempty"`
	Code     string `json:"code,omitempty"`

	// agent_metadata
	Framework    string          `json:"framework,omitempty"`
	Model        string          `json:"model,omitempty"`
	Provider     string          `json:"provider,omitempty"`
	FinishReason string          `json:"finishReason,omitempty"`
	Usage        *Usage          `json:"usage,omitempty"`
	Raw          json.RawMessage `json:"raw,omitempty"`

	// decision_result
	Value json.RawMessage `json:"value,omitempty"`

	// tool_call (ID, Name, Arguments) and tool_result (CallID, Name, Output)
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	CallID    string          `json:"callId,omitempty"`
	Output    json.RawMessage `json:"output,omitempty"`

	// response.created echoes the caller's metadata.
	Metadata json.RawMessage `json:"metadata,omitempty"`

	// error
	Error string `json:"error,omitempty"`

	// response.artifact: one chunk of an artifact (artifact.go)
	Artifact *ArtifactInfo `json:"artifact,omitempty"`

	// response.retracted
	Retracted *Retraction `json:"retracted,omitempty"`

	// response.steered
	Steered *SteerInfo `json:"steer,omitempty"`

	// approval.requested and client_tool.requested
	Approval   *ApprovalInfo   `json:"approval,omitempty"`
	ClientTool *ClientToolInfo `json:"clientTool,omitempty"`

	// approval.resolved
	Resolution *ApprovalResolution `json:"resolution,omitempty"`

	// Envelope is the payload of response.completed: the response as JSON
	// callers see it, with responseId in place of id.
	Envelope *Envelope `json:"-"`

	encoded []byte // the JSON, once the runtime has numbered the event
	members []byte // response.completed: the envelope body's members, when already encoded
}

// Activities of response.agent_activity that say how the turn's answer is
// to be taken, for every transport. The receipt of such a turn is still
// completed (its text says what the agent means); transports with an
// equivalent state use it: A2A answers with a Task (ActivityTask), or ends
// the task as rejected or auth-required with the answer's text as the
// status message.
const (
	// ActivityTask asks for the answer as a task the client can follow,
	// not a direct message (any artifact implies it too).
	ActivityTask = "task"
	// ActivityRejected: the agent refuses the request; the answer's text
	// says why.
	ActivityRejected = "rejected"
	// ActivityAuthRequired: the agent needs credentials from the caller
	// before it can go on; the answer's text says which.
	ActivityAuthRequired = "auth_required"
)

// ApprovalInfo is the payload of approval.requested.
type ApprovalInfo struct {
	ID      string `json:"id"`
	CallID  string `json:"callId"`
	Action  string `json:"action"`
	Message string `json:"message"`
	// Arguments are the action's arguments (a JSON object), shown to the
	// human who decides; omitted when the agent gave none.
	Arguments json.RawMessage `json:"arguments,omitempty"`
	ExpiresAt string          `json:"expiresAt"`
	// Answers and ArgumentsSchema: as in RequiredAction.
	Answers         []string        `json:"answers,omitempty"`
	ArgumentsSchema json.RawMessage `json:"argumentsSchema,omitempty"`
}

// ClientToolInfo is the payload of client_tool.requested.
type ClientToolInfo struct {
	ID        string          `json:"id"`
	CallID    string          `json:"callId"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	ExpiresAt string          `json:"expiresAt"`
	// Batch is set on a call of several the agent asked for at once
	// (Turn.RequestClientTools): they share the wait ID, and one answer
	// gives all their outputs, a JSON array in the order of Index.
	Batch *ClientToolBatch `json:"batch,omitempty"`
}

// ClientToolBatch places a client tool call among the calls asked for at
// once: Index (from 0) of Size.
type ClientToolBatch struct {
	Index int `json:"index"`
	Size  int `json:"size"`
}

// Usage is token usage reported by a model call; the response's usage is
// the sum over its agent_metadata events.
type Usage struct {
	InputTokens  int `json:"inputTokens"`
	OutputTokens int `json:"outputTokens"`
	TotalTokens  int `json:"totalTokens"`
	// CostMicros is what the call cost in micro-dollars, when the backend
	// knows it (0: not reported).
	CostMicros int `json:"costMicros,omitempty"`
}

// JSON is the event as transports send it: the bytes the runtime encoded
// when it numbered the event (and logged it), so no transport encodes an
// event twice.
func (e Event) JSON() ([]byte, error) {
	if e.encoded != nil {
		return e.encoded, nil
	}
	return e.encode()
}

// MarshalJSON writes the event with the fields its type carries.
func (e Event) MarshalJSON() ([]byte, error) { return e.JSON() }

// encode writes the event with the fields its type carries (see
// event_json.go).
func (e Event) encode() ([]byte, error) { return e.appendJSON(make([]byte, 0, e.sizeHint())) }

// sizeHint is about the length of the event's JSON (a little more).
func (e *Event) sizeHint() int {
	if e.Envelope != nil && e.members != nil { // the envelope is already encoded
		return 64 + len(e.Type) + len(e.Envelope.ID) + len(e.Envelope.SessionID) + len(e.members)
	}
	size := 128 + len(e.ResponseID) + len(e.SessionID) + len(e.Delta)
	if e.Envelope != nil {
		size += e.Envelope.sizeHint()
	}
	return size
}
