package backend

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/harnest/harnest/runtime"
)

// This file is the wire format of worker mode: the lines a worker may send
// (decodeWorkerLine) and the lines the server sends it. docs/worker-protocol.md
// describes the same protocol for worker authors; keep the two in step.

// Types of the lines a worker sends.
const (
	wText              = "text"
	wThinking          = "thinking"
	wToolCall          = "tool_call"
	wToolResult        = "tool_result"
	wActivity          = "activity"
	wMetadata          = "metadata"
	wState             = "state"
	wResult            = "result"
	wApprovalRequest   = "approval_request"
	wClientToolRequest = "client_tool_request"
	wError             = "error"
	wDone              = "done"
	wCheckpoint        = "checkpoint" // worker_checkpoint.go
)

// workerMessage is one decoded line from a worker. Only the fields of its
// type are set.
type workerMessage struct {
	Type string
	ID   string // the response the line belongs to

	Agent string // optional on output events

	Delta      string                     // text, thinking
	StateDelta map[string]json.RawMessage // state

	Activity, Target, Code string // activity

	Framework, Model, Provider, FinishReason string // metadata
	Usage                                    *runtime.Usage
	Raw                                      json.RawMessage

	CallID    string          // tool_call, tool_result, client_tool_request (optional there)
	Name      string          // tool_call, tool_result, client_tool_request
	Arguments json.RawMessage // tool_call, approval_request, client_tool_request: an object
	Output    json.RawMessage // tool_result: any JSON value
	Value     json.RawMessage // result: any JSON value

	Artifact *runtime.ArtifactInfo // artifact

	Checkpoint json.RawMessage // checkpoint: any JSON value, at most workerCheckpointMax bytes

	RequestID string // approval_request, client_tool_request
	Action    string // approval_request
	// approval_request: the answers it takes beside approve and deny, and
	// the schema edited arguments must match (worker_approval.go)
	Answers         []string
	ArgumentsSchema json.RawMessage
	Message         string // approval_request, error
}

// emptyObject is the JSON of an object with nothing in it.
var emptyObject = json.RawMessage(`{}`)

// decodeWorkerLine decodes one line a worker wrote (without its newline).
// It accepts exactly the types of the protocol, with an "id", and checks
// every field it knows for its JSON type; fields it does not know are
// ignored, so that workers can be newer than the server.
func decodeWorkerLine(b []byte) (workerMessage, error) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return workerMessage{}, errors.New("empty line")
	}
	if b[0] != '{' {
		return workerMessage{}, errors.New("not a JSON object")
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		return workerMessage{}, fmt.Errorf("not valid JSON: %w", err)
	}
	d := lineFields(fields)

	var m workerMessage
	var err error
	if m.Type, err = d.str("type", true); err != nil {
		return workerMessage{}, err
	}
	if m.ID, err = d.str("id", true); err != nil {
		return workerMessage{}, err
	}
	r := &lineReader{d: d}
	if !r.streamLine(&m) && !r.controlLine(&m) {
		return workerMessage{}, fmt.Errorf("unknown type %s", quoteShort(m.Type))
	}
	if r.first != nil {
		return workerMessage{}, fmt.Errorf("%s: %w", m.Type, r.first)
	}
	return m, nil
}

// lineReader reads a line's fields, keeping the first error in first.
type lineReader struct {
	d     lineFields
	first error
}

func (r *lineReader) fail(err error) {
	if r.first == nil {
		r.first = err
	}
}

func (r *lineReader) str(name string, required bool) string {
	s, err := r.d.str(name, required)
	r.fail(err)
	return s
}

func (r *lineReader) obj(name string, required bool) json.RawMessage {
	o, err := r.d.object(name, required)
	r.fail(err)
	return o
}

// val is a field's JSON value, null when it is absent.
func (r *lineReader) val(name string) json.RawMessage {
	if v, ok := r.d[name]; ok {
		return v
	}
	return json.RawMessage("null")
}

// streamLine reads the fields of a line that streams the turn's output
// (text, thinking, tools, activity, metadata, state, artifacts); false
// when m's type is none of them.
func (r *lineReader) streamLine(m *workerMessage) bool {
	switch m.Type {
	case wText, wThinking:
		if raw, ok := r.d["delta"]; !ok || isNull(raw) {
			r.fail(errors.New(`field "delta" is missing`))
		}
		m.Delta = r.str("delta", false) // may be empty
		m.Agent = r.str("agent", false)
	case wToolCall, wToolResult:
		m.CallID = r.str("callId", true)
		m.Name = r.str("name", true)
		if m.Type == wToolCall {
			m.Arguments = r.obj("arguments", false)
		} else {
			m.Output = r.val("output")
		}
		m.Agent = r.str("agent", false)
	case wActivity:
		m.Activity = r.str("activity", true)
		m.Target = r.str("target", false)
		m.Code = r.str("code", false)
		m.Agent = r.str("agent", false)
	case wMetadata:
		r.metadataLine(m)
	case wState:
		delta := r.obj("delta", true)
		m.Agent = r.str("agent", false)
		if r.first == nil {
			if err := json.Unmarshal(delta, &m.StateDelta); err != nil {
				r.fail(fmt.Errorf(`field "delta": %w`, err))
			}
		}
	case wArtifact:
		m.Agent = r.str("agent", false)
		if r.first == nil {
			m.Artifact, r.first = decodeArtifact(r.d)
		}
	default:
		return false
	}
	return true
}

// metadataLine reads a metadata line: the framework, model, usage.
func (r *lineReader) metadataLine(m *workerMessage) {
	m.Framework = r.str("framework", true)
	m.Model = r.str("model", false)
	m.Provider = r.str("provider", false)
	m.FinishReason = r.str("finishReason", false)
	m.Agent = r.str("agent", false)
	if raw, ok := r.d["raw"]; ok && !isNull(raw) {
		m.Raw = r.obj("raw", false)
	}
	if r.first == nil {
		m.Usage, r.first = r.d.usage("usage")
	}
}

// controlLine reads the fields of a line that steers the turn (a result,
// a wait, a checkpoint, an error, its end); false when m's type is none
// of them.
func (r *lineReader) controlLine(m *workerMessage) bool {
	switch m.Type {
	case wResult:
		if _, ok := r.d["value"]; !ok {
			r.fail(errors.New(`field "value" is missing`))
		}
		m.Value = r.val("value")
	case wApprovalRequest:
		m.RequestID = r.str("requestId", true)
		m.Action = r.str("action", true)
		m.Message = r.str("message", false)
		m.Arguments = r.obj("arguments", false)
		r.answers(m) // worker_approval.go
	case wClientToolRequest:
		m.RequestID = r.str("requestId", true)
		m.Name = r.str("name", true)
		m.Arguments = r.obj("arguments", false)
		m.CallID = r.str("callId", false)
	case wCheckpoint:
		if r.first == nil {
			m.Checkpoint, r.first = decodeCheckpoint(r.d)
		}
	case wError:
		m.Message = r.str("message", false)
	case wDone:
	default:
		return false
	}
	return true
}

// lineFields are the top-level fields of a line, by exact name.
type lineFields map[string]json.RawMessage

// str reads a string field. A missing or null field is "", and so an
// error if required (as is an empty string); any other JSON type is an
// error.
func (f lineFields) str(name string, required bool) (string, error) {
	raw, ok := f[name]
	if !ok || isNull(raw) {
		if required {
			return "", fmt.Errorf("field %q is missing", name)
		}
		return "", nil
	}
	if raw[0] != '"' {
		return "", fmt.Errorf("field %q must be a string", name)
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("field %q: %w", name, err)
	}
	if required && s == "" {
		return "", fmt.Errorf("field %q is empty", name)
	}
	return s, nil
}

// object reads a field that must be a JSON object. A missing or null field
// is {} (an error if required).
func (f lineFields) object(name string, required bool) (json.RawMessage, error) {
	raw, ok := f[name]
	if !ok || isNull(raw) {
		if required {
			return nil, fmt.Errorf("field %q is missing", name)
		}
		return emptyObject, nil
	}
	if raw[0] != '{' {
		return nil, fmt.Errorf("field %q must be an object", name)
	}
	return raw, nil
}

// usage reads the optional token usage of a metadata line: an object of
// non-negative integers (costMicros: what the call cost in micro-dollars).
// A total of 0 means input plus output.
func (f lineFields) usage(name string) (*runtime.Usage, error) {
	raw, err := f.object(name, false)
	if err != nil {
		return nil, err
	}
	if _, ok := f[name]; !ok || isNull(f[name]) {
		return nil, nil
	}
	var counts map[string]json.RawMessage
	if err := json.Unmarshal(raw, &counts); err != nil {
		return nil, fmt.Errorf("field %q: %w", name, err)
	}
	var u runtime.Usage
	for key, dst := range map[string]*int{
		"inputTokens": &u.InputTokens, "outputTokens": &u.OutputTokens, "totalTokens": &u.TotalTokens,
		"costMicros": &u.CostMicros,
	} {
		v, ok := counts[key]
		if !ok || isNull(v) {
			continue
		}
		var n int64
		if err := json.Unmarshal(v, &n); err != nil || n < 0 || n > 1<<52 {
			return nil, fmt.Errorf("field %q: %s must be a non-negative integer", name, key)
		}
		*dst = int(n)
	}
	if u.TotalTokens == 0 {
		u.TotalTokens = u.InputTokens + u.OutputTokens
	}
	return &u, nil
}

// isNull reports whether raw is the JSON null.
func isNull(raw json.RawMessage) bool { return string(raw) == "null" }

// quoteShort quotes s for an error message, cut to a few dozen bytes: what
// a worker wrote is not echoed at length.
func quoteShort(s string) string {
	const max = 40
	if len(s) > max {
		return fmt.Sprintf("%q...", s[:max])
	}
	return fmt.Sprintf("%q", s)
}

// event is the runtime event of an output line (text, thinking, tool_call,
// tool_result, activity, metadata, state, artifact). ok is false for the other types.
func (m workerMessage) event() (runtime.Event, bool) {
	switch m.Type {
	case wText:
		return runtime.Event{Type: runtime.EventTextDelta, Delta: m.Delta, Agent: m.Agent}, true
	case wThinking:
		return runtime.Event{Type: runtime.EventThinkingDelta, Delta: m.Delta, Agent: m.Agent}, true
	case wToolCall:
		return runtime.Event{Type: runtime.EventToolCall, ID: m.CallID, Name: m.Name, Arguments: m.Arguments, Agent: m.Agent}, true
	case wToolResult:
		return runtime.Event{Type: runtime.EventToolResult, CallID: m.CallID, Name: m.Name, Output: m.Output, Agent: m.Agent}, true
	case wActivity:
		return runtime.Event{Type: runtime.EventAgentActivity, Agent: m.Agent, Activity: m.Activity, Target: m.Target, Code: m.Code}, true
	case wMetadata:
		return runtime.Event{Type: runtime.EventAgentMetadata, Agent: m.Agent, Framework: m.Framework, Model: m.Model,
			Provider: m.Provider, FinishReason: m.FinishReason, Usage: m.Usage, Raw: m.Raw}, true
	case wState:
		return runtime.Event{Type: runtime.EventStateDelta, StateDelta: m.StateDelta, Agent: m.Agent}, true
	case wArtifact:
		return runtime.Event{Type: runtime.EventArtifact, Artifact: m.Artifact, Agent: m.Agent}, true
	}
	return runtime.Event{}, false
}

// Lines the server sends a worker.

// turnLine starts a turn.
type turnLine struct {
	Type      string                     `json:"type"` // "turn"
	ID        string                     `json:"id"`
	SessionID string                     `json:"sessionId"`
	UserID    string                     `json:"userId"`
	Input     string                     `json:"input"`
	Content   []workerContent            `json:"content"`
	State     map[string]json.RawMessage `json:"state"`
	Metadata  json.RawMessage            `json:"metadata"`
	History   []runtime.Message          `json:"history"`
	// Compaction is the session's newest compaction item (a summary that
	// stands for the messages before History); left out when it has none.
	Compaction *runtime.CompactionItem `json:"compaction,omitempty"`
	// Message is what the protocol message carried beside its parts
	// (A2A: messageId, contextId, taskId, referenceTaskIds, extensions,
	// metadata); left out when the transport had none.
	Message *runtime.TurnMessage `json:"message,omitempty"`
	// TraceParent is the turn's W3C trace context; left out when the turn
	// is not traced.
	TraceParent string `json:"traceparent,omitempty"`
	// Attempt is 1, or more for a turn run again after its replica was
	// lost; Checkpoint is then the last checkpoint line's value, if the
	// lost attempt sent one (worker_checkpoint.go).
	Attempt    int             `json:"attempt"`
	Checkpoint json.RawMessage `json:"checkpoint,omitempty"`
}

// workerContent is one content part of a turn line: the runtime's part,
// and for media held as an asset of at most workerInlineBytes, its bytes
// (base64 in JSON), so that a worker can read a file the client sent.
type workerContent struct {
	runtime.ContentInput
	Bytes []byte `json:"bytes,omitempty"`
}

// workerInlineBytes is the largest asset whose bytes a turn line carries.
const workerInlineBytes = 1 << 20

// clientToolLine answers a client_tool_request: Output, or Error.
type clientToolLine struct {
	Type      string          `json:"type"` // "client_tool"
	ID        string          `json:"id"`
	RequestID string          `json:"requestId"`
	Output    json.RawMessage `json:"output,omitempty"`
	Error     string          `json:"error,omitempty"`
}

// cancelLine asks the worker to stop the turn.
type cancelLine struct {
	Type string `json:"type"` // "cancel"
	ID   string `json:"id"`
}

// encodeLine is v as one line of JSON, newline included. Go's encoder
// escapes U+2028 and U+2029 and never writes a raw newline, so the line
// cannot be split.
func encodeLine(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
