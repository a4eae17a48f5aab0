package runtime

import "encoding/json"

// Response statuses.
const (
	StatusInProgress     = "in_progress"
	StatusCompleted      = "completed"
	StatusRequiresAction = "requires_action"
	StatusFailed         = "failed"
	StatusCancelled      = "cancelled"
	StatusDenied         = "denied"
)

// Envelope is a response as JSON callers see it: the body of a
// non-streaming POST /responses, the payload of response.completed, and the
// receipt that GET /responses/{id} returns, byte for byte.
type Envelope struct {
	ID        string `json:"id"`
	SessionID string `json:"sessionId"`
	EnvelopeBody
}

// EnvelopeBody is an envelope without its IDs: response.completed carries it
// after type, sequence, responseId and sessionId.
type EnvelopeBody struct {
	Status     string          `json:"status"`
	OutputText string          `json:"outputText"`
	Output     []OutputItem    `json:"output"`
	Metadata   json.RawMessage `json:"metadata"`
	Usage      *Usage          `json:"usage,omitempty"`
	Result     json.RawMessage `json:"result,omitempty"`
	Error      *EnvelopeError  `json:"error,omitempty"`
	// RequiredAction says what a requires_action response waits for.
	RequiredAction *RequiredAction `json:"requiredAction,omitempty"`
	// ApprovalID and ClientToolID name the last wait this response resumed
	// from, on the envelope that ended the segment after it.
	ApprovalID   string `json:"approvalId,omitempty"`
	ClientToolID string `json:"clientToolId,omitempty"`
}

// RequiredAction is a pending human approval or client tool.
type RequiredAction struct {
	Type      string          `json:"type"` // human_approval or client_tool
	ID        string          `json:"id"`
	CallID    string          `json:"callId"`
	Action    string          `json:"action,omitempty"`    // approvals
	Message   string          `json:"message,omitempty"`   // approvals
	Name      string          `json:"name,omitempty"`      // client tools
	Arguments json.RawMessage `json:"arguments,omitempty"` // client tools; approvals when the agent gave them
	ExpiresAt string          `json:"expiresAt"`
	// Answers are the decisions an approval takes when they are more than
	// approve and deny (approval_answer.go); ArgumentsSchema is the schema
	// edited arguments must match.
	Answers         []string        `json:"answers,omitempty"`
	ArgumentsSchema json.RawMessage `json:"argumentsSchema,omitempty"`
	// Calls are every call of a batch of client tools (suspend_batch.go),
	// in order; the fields above name the first. One answer gives all
	// their outputs: a JSON array in this order. Nil for a single call.
	Calls []ClientToolCall `json:"calls,omitempty"`
}

// ClientToolCall is one call of a batch of client tools.
type ClientToolCall struct {
	CallID    string          `json:"callId"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// EnvelopeError says why a response failed, with a stable code only: the
// detail of an agent failure never reaches a client.
type EnvelopeError struct {
	Code string `json:"code"`
	// Attempts is how many attempts ran a response that failed with
	// replica_lost past the attempt budget (0: not told).
	Attempts int `json:"attempts,omitempty"`
}

// Error codes of failed and cancelled receipts.
const (
	CodeInvocationFailed = "invocation_failed"
	CodeTimedOut         = "timed_out"
	CodeNoOutput         = "no_output"
	CodeCancelled        = "cancelled"
	CodeShutdown         = "server_shutdown"
	CodeLeaseLost        = "lease_lost"
	CodeReplicaLost      = "replica_lost"
	// CodeStoreUnavailable: the state store did not answer (also when a
	// backend's own store call failed: a 503 the caller may retry).
	CodeStoreUnavailable = "store_unavailable"
)

// OutputItem is one entry of output[]: a folded message or thinking block,
// or one activity item. Fields that a type does not carry stay empty.
type OutputItem struct {
	Type string `json:"type"`

	// message and thinking
	Role    string        `json:"role,omitempty"`
	Content []ContentPart `json:"content,omitempty"`
	Agent   string        `json:"agent,omitempty"`

	// agent_activity
	Activity string `json:"activity,omitempty"`
	Target   string `json:"target,omitempty"`
	Code     string `json:"code,omitempty"`

	// agent_metadata
	Framework    string          `json:"framework,omitempty"`
	Usage        *Usage          `json:"usage,omitempty"`
	Model        string          `json:"model,omitempty"`
	Provider     string          `json:"provider,omitempty"`
	FinishReason string          `json:"finishReason,omitempty"`
	Raw          json.RawMessage `json:"raw,omitempty"`

	// decision_result and output
	Value json.RawMessage `json:"value,omitempty"`

	// tool_call and tool_result
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	CallID    string          `json:"callId,omitempty"`
	Output    json.RawMessage `json:"output,omitempty"`

	// approval_resolved
	Resolution *ApprovalResolution `json:"resolution,omitempty"`

	// artifact (its chunks folded into one item; Name above)
	ArtifactID       string          `json:"artifactId,omitempty"`
	Description      string          `json:"description,omitempty"`
	Parts            []ArtifactPart  `json:"parts,omitempty"`
	ArtifactMetadata json.RawMessage `json:"metadata,omitempty"`
}

// ContentPart is a piece of a message or thinking item.
type ContentPart struct {
	Type string `json:"type"` // output_text or thinking_text
	Text string `json:"text"`
}

// outputBuilder folds the event stream into output[], outputText and usage.
// The text of the last item grows in a buffer while deltas extend it and
// becomes its string when another item starts or the output is read (a
// string per delta copied the whole text each time). A message item's
// text is the span of text it added to outputText; a thinking item's has
// a buffer of its own.
type outputBuilder struct {
	items     []OutputItem
	text      []byte // every text delta: outputText
	thinking  []byte // the open thinking item's text
	openStart int    // where the open message item's text starts in text
	opened    bool   // the last item is a text item still being extended
	usage     *Usage
	steers    []steerMark // where the turn took steers (steer_transcript.go)
}

// add folds one event. Adjacent text deltas of the same agent become one
// message item, adjacent thinking deltas one thinking item.
func (b *outputBuilder) add(e Event) {
	switch e.Type {
	case EventTextDelta:
		b.appendText("message", "output_text", e)
		b.appendDelta(e.Delta)
	case EventThinkingDelta:
		b.appendText("thinking", "thinking_text", e)
	case EventAgentActivity:
		b.appendItem(OutputItem{Type: "agent_activity", Agent: e.Agent, Activity: e.Activity, Target: e.Target, Code: e.Code})
	case EventAgentMetadata:
		b.appendItem(OutputItem{Type: "agent_metadata", Agent: e.Agent, Framework: e.Framework, Usage: e.Usage,
			Model: e.Model, Provider: e.Provider, FinishReason: e.FinishReason, Raw: e.Raw})
		b.addUsage(e.Usage)
	case EventDecisionResult:
		b.appendItem(OutputItem{Type: "decision_result", Agent: e.Agent, Value: e.Value})
	case EventToolCall:
		b.appendItem(OutputItem{Type: "tool_call", ID: e.ID, Name: e.Name, Arguments: e.Arguments, Agent: e.Agent})
	case EventToolResult:
		b.appendItem(OutputItem{Type: "tool_result", CallID: e.CallID, Name: e.Name, Output: e.Output, Agent: e.Agent})
	case EventApprovalResolved:
		b.appendItem(OutputItem{Type: OutputApprovalResolved, Resolution: e.Resolution, Agent: e.Agent})
	case EventArtifact:
		b.closeText()
		b.addArtifact(e.Artifact)
	case EventSteered:
		b.markSteer(e.Steered)
	}
}

// appendItem closes the open text item and appends item.
func (b *outputBuilder) appendItem(item OutputItem) {
	b.closeText()
	b.items = append(b.items, item)
}

func (b *outputBuilder) appendText(itemType, partType string, e Event) {
	if n := len(b.items); n > 0 && b.opened {
		last := &b.items[n-1]
		if last.Type == itemType && last.Agent == e.Agent {
			if itemType == "thinking" {
				b.thinking = append(b.thinking, e.Delta...)
			}
			return
		}
	}
	item := OutputItem{Type: itemType, Content: []ContentPart{{Type: partType}}, Agent: e.Agent}
	if itemType == "message" {
		item.Role = "assistant"
	}
	b.appendItem(item)
	b.opened = true
	if itemType == "thinking" {
		b.thinking = append(b.thinking[:0], e.Delta...)
	} else {
		b.openStart = len(b.text) // add appends the delta next
	}
}

// appendDelta appends a text delta to outputText, with room for a few more
// at the first.
func (b *outputBuilder) appendDelta(delta string) {
	if b.text == nil {
		b.text = make([]byte, 0, max(64, 2*len(delta)))
	}
	b.text = append(b.text, delta...)
}

// closeText gives the open text item its text.
func (b *outputBuilder) closeText() {
	if !b.opened {
		return
	}
	b.opened = false
	last := &b.items[len(b.items)-1]
	if last.Type == "thinking" {
		last.Content[0].Text = string(b.thinking)
	} else {
		last.Content[0].Text = string(b.text[b.openStart:])
	}
}

// output returns output[] as it stands.
func (b *outputBuilder) output() []OutputItem {
	b.closeText()
	return b.items
}

// addUsage sums usage over the metadata events that reported an input or
// output count or a cost; a missing total is their sum.
func (b *outputBuilder) addUsage(u *Usage) {
	if u == nil || (u.InputTokens == 0 && u.OutputTokens == 0 && u.CostMicros == 0) {
		return
	}
	total := u.TotalTokens
	if total == 0 {
		total = u.InputTokens + u.OutputTokens
	}
	if b.usage == nil {
		b.usage = &Usage{}
	}
	b.usage.InputTokens += u.InputTokens
	b.usage.OutputTokens += u.OutputTokens
	b.usage.TotalTokens += total
	b.usage.CostMicros += u.CostMicros
}

// OutputPolicy says what of the activity stream callers see. It is applied
// once, before any transport sees an event.
type OutputPolicy struct {
	HideToolActivity bool   // drop tool_call and tool_result
	ShowThinking     bool   // keep thinking deltas (dropped by default)
	AgentMetadata    string // "normalized" (default), "suppress" or "raw"
}

// filter applies the policy to one event; false drops it.
func (p OutputPolicy) filter(e *Event) bool {
	switch e.Type {
	case EventToolCall, EventToolResult:
		return !p.HideToolActivity
	case EventThinkingDelta:
		return p.ShowThinking
	case EventAgentMetadata:
		switch p.AgentMetadata {
		case "suppress":
			return false
		case "raw":
		default:
			e.Raw = nil
		}
	}
	return true
}
