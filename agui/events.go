package agui

import (
	"encoding/json"
	"sort"
	"strings"
	"time"

	"github.com/harnest/harnest/internal/jsonwrite"
	"github.com/harnest/harnest/runtime"
)

// AG-UI event types this server sends. It never sends a type the 0.0.x
// clients do not know (they fail on unknown types); everything else goes
// out as CUSTOM.
const (
	runStarted              = "RUN_STARTED"
	runFinished             = "RUN_FINISHED"
	runError                = "RUN_ERROR"
	textMessageStart        = "TEXT_MESSAGE_START"
	textMessageContent      = "TEXT_MESSAGE_CONTENT"
	textMessageEnd          = "TEXT_MESSAGE_END"
	reasoningStart          = "REASONING_START"
	reasoningMessageStart   = "REASONING_MESSAGE_START"
	reasoningMessageContent = "REASONING_MESSAGE_CONTENT"
	reasoningMessageEnd     = "REASONING_MESSAGE_END"
	reasoningEnd            = "REASONING_END"
	toolCallStart           = "TOOL_CALL_START"
	toolCallArgs            = "TOOL_CALL_ARGS"
	toolCallEnd             = "TOOL_CALL_END"
	toolCallResult          = "TOOL_CALL_RESULT"
	stateSnapshot           = "STATE_SNAPSHOT"
	stateDelta              = "STATE_DELTA"
	messagesSnapshot        = "MESSAGES_SNAPSHOT"
	custom                  = "CUSTOM"
)

// event is one AG-UI event as this server writes it. Every optional field
// is omitted when empty: a null on an optional field is fatal in the
// clients. Required strings that may be empty (delta) are raw JSON, so ""
// is still sent.
type event struct {
	Type         string          `json:"type"`
	Timestamp    int64           `json:"timestamp,omitempty"` // milliseconds, always an integer
	ThreadID     string          `json:"threadId,omitempty"`
	RunID        string          `json:"runId,omitempty"`
	MessageID    string          `json:"messageId,omitempty"`
	Role         string          `json:"role,omitempty"`
	Delta        json.RawMessage `json:"delta,omitempty"`
	ToolCallID   string          `json:"toolCallId,omitempty"`
	ToolCallName string          `json:"toolCallName,omitempty"`
	Content      json.RawMessage `json:"content,omitempty"`
	Snapshot     json.RawMessage `json:"snapshot,omitempty"`
	Messages     json.RawMessage `json:"messages,omitempty"`
	Name         string          `json:"name,omitempty"`
	Value        json.RawMessage `json:"value,omitempty"`
	Result       json.RawMessage `json:"result,omitempty"`
	Outcome      *outcome        `json:"outcome,omitempty"`
	Message      string          `json:"message,omitempty"`
	Code         string          `json:"code,omitempty"`
}

// outcome is RUN_FINISHED.outcome: "interrupt" (both client generations)
// or "cancelled" (1.0 clients only).
type outcome struct {
	Type       string      `json:"type"`
	Interrupts []interrupt `json:"interrupts,omitempty"`
}

// interrupt is one pending interaction the client must resume.
type interrupt struct {
	ID             string          `json:"id"`
	Reason         string          `json:"reason"`
	Message        string          `json:"message,omitempty"`
	ToolCallID     string          `json:"toolCallId,omitempty"`
	ResponseSchema json.RawMessage `json:"responseSchema,omitempty"`
	ExpiresAt      string          `json:"expiresAt,omitempty"`
	Metadata       json.RawMessage `json:"metadata,omitempty"`
}

// approvalSchema is what an approval interrupt's resume payload must be.
var approvalSchema = json.RawMessage(`{"type":"object","properties":{"approved":{"type":"boolean"}},"required":["approved"],"additionalProperties":false}`)

// The emitter reads the runtime's typed events (runtime.Event): those of
// the running response as it emits them, and those of its log as
// runtime.Frame.Event reads them back, so both map the same.

// typedEvent is the event a stream hands the emitter; false skips it. A
// response.completed that carries an error code (a cancelled response, or
// one ended by a shutdown) is not taken as the run's end: the run ends
// from the response's failure instead (RUN_ERROR with that code), as it
// always has.
func typedEvent(n runtime.Event) (runtime.Event, bool) {
	if n.Type == "" || (n.Type == runtime.EventCompleted && (n.Envelope == nil || n.Envelope.Error != nil)) {
		return n, false
	}
	return n, true
}

// eventJSON is the event as the runtime logged it: the value of a CUSTOM
// event.
func eventJSON(n runtime.Event) json.RawMessage {
	b, _ := n.JSON()
	return b
}

// loggedValue is a JSON value of an event as the runtime logs it (compact,
// with HTML characters escaped as encoding/json writes them), so a tool
// call's arguments, a tool's output or a state member read the same from
// the running response as from its log (absent is null).
func loggedValue(v json.RawMessage) json.RawMessage {
	b, err := jsonwrite.AppendRaw(nil, v)
	if err != nil {
		return jsonwrite.Compact(v)
	}
	return b
}

// streamed is a message the client builds from this run's events, kept to
// restate the conversation in MESSAGES_SNAPSHOT.
type streamed struct {
	id, role   string
	content    strings.Builder
	toolCallID string // tool result
	call       *wireToolCall
}

type wireToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

func (m *streamed) MarshalJSON() ([]byte, error) {
	switch {
	case m.call != nil:
		return json.Marshal(struct {
			ID        string          `json:"id"`
			Role      string          `json:"role"`
			ToolCalls []*wireToolCall `json:"toolCalls"`
		}{m.id, "assistant", []*wireToolCall{m.call}})
	case m.role == "tool":
		return json.Marshal(struct {
			ID         string `json:"id"`
			Role       string `json:"role"`
			ToolCallID string `json:"toolCallId"`
			Content    string `json:"content"`
		}{m.id, "tool", m.toolCallID, m.content.String()})
	}
	return json.Marshal(struct {
		ID      string `json:"id"`
		Role    string `json:"role"`
		Content string `json:"content"`
	}{m.id, m.role, m.content.String()})
}

// emitter maps one run's neutral events to AG-UI events and keeps the
// sequence valid for the client's verifier: at most one text message or
// reasoning span open, closed before any other event; a state snapshot
// before the first delta; nothing after the terminal event.
type emitter struct {
	send     func([]byte) error
	threadID string
	runID    string
	legacy   bool
	frontend map[string]bool // tool names the client offered
	now      func() time.Time
	newID    func() string

	text      *streamed // the open text message
	textAgent string
	reasoning *streamed // the open reasoning span and message

	state     map[string]json.RawMessage // the state as the client will see it
	stateSent bool

	messages  []json.RawMessage // the client's messages
	streamed  []*streamed       // what this run added
	toolCalls map[string]string // tool call ID -> name, of this run and its history

	terminal bool
	err      error // the first write error: the client is gone
}

func newEmitter(in runInput, base map[string]json.RawMessage, send func([]byte) error, newID func() string) *emitter {
	state := make(map[string]json.RawMessage, len(base)+len(in.State))
	for k, v := range base {
		if !reservedKey(k) {
			state[k] = v
		}
	}
	for k, v := range in.State {
		state[k] = v
	}
	return &emitter{
		send: send, threadID: in.ThreadID, runID: in.RunID, legacy: in.Legacy,
		frontend: in.ToolNames, now: time.Now, newID: newID,
		state: state, messages: in.Messages, toolCalls: map[string]string{},
	}
}

// write sends one event; after a failure nothing more is sent.
func (e *emitter) write(ev event) {
	if e.err != nil || e.terminal {
		return
	}
	ev.Timestamp = e.now().UnixMilli()
	b, err := json.Marshal(ev)
	if err != nil {
		e.err = err
		return
	}
	e.err = e.send(b)
}

func jsonString(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

func (e *emitter) begin() {
	e.write(event{Type: runStarted, ThreadID: e.threadID, RunID: e.runID})
}

// closeOpen ends the open text message and reasoning span.
func (e *emitter) closeOpen() {
	if e.text != nil {
		e.write(event{Type: textMessageEnd, MessageID: e.text.id})
		e.text = nil
	}
	if e.reasoning != nil {
		e.write(event{Type: reasoningMessageEnd, MessageID: e.reasoning.id})
		e.write(event{Type: reasoningEnd, MessageID: e.reasoning.id})
		e.reasoning = nil
	}
}

// replay takes in an event of the response's earlier segments (a resumed
// run): the client has seen it already, so only what later events depend
// on is kept.
func (e *emitter) replay(n runtime.Event) {
	switch n.Type {
	case runtime.EventToolCall:
		e.toolCalls[n.ID] = n.Name
	case runtime.EventStateDelta:
		e.applyState(n.StateDelta)
	case runtime.EventClientTool:
		// Its triad went out with the interrupt or frontend tool call.
		if c := n.ClientTool; c != nil {
			a := runtime.RequiredAction{ID: c.ID, CallID: c.CallID, Name: c.Name}
			e.toolCalls[clientToolCallID(a, n.ResponseID)] = c.Name
		}
	}
}

// event maps one non-terminal neutral event.
func (e *emitter) event(n runtime.Event) {
	switch n.Type {
	case runtime.EventCreated, runtime.EventApproval, runtime.EventClientTool:
		// RUN_STARTED is already out; waits are carried by the run's end.
	case runtime.EventTextDelta:
		e.textDelta(n)
	case runtime.EventThinkingDelta:
		e.thinkingDelta(n)
	case runtime.EventToolCall:
		e.closeOpen()
		id := n.ID
		if id == "" {
			id = "call-" + e.newID()
		}
		e.toolCall(id, n.Name, loggedValue(n.Arguments))
	case runtime.EventToolResult:
		e.closeOpen()
		e.toolResult(n.CallID, loggedValue(n.Output))
	case runtime.EventStateDelta:
		e.closeOpen()
		e.stateDelta(n.StateDelta)
	case runtime.EventRetracted:
		// A lost replica's attempt is withdrawn and the turn runs again
		// from the start: the client is told (CUSTOM), and the messages
		// snapshot at the end holds the new attempt's messages only.
		e.closeOpen()
		e.streamed = nil
		e.write(event{Type: custom, Name: n.Type, Value: eventJSON(n)})
	default: // agent_activity, agent_metadata, decision_result, and anything newer
		e.closeOpen()
		e.write(event{Type: custom, Name: n.Type, Value: eventJSON(n)})
	}
}

// deltaText is the string a JSON string holds ("" for anything else).
func deltaText(raw json.RawMessage) string {
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

func (e *emitter) textDelta(n runtime.Event) {
	delta := n.Delta
	if delta == "" {
		return
	}
	if e.reasoning != nil || (e.text != nil && e.textAgent != n.Agent) {
		e.closeOpen()
	}
	if e.text == nil {
		e.text = &streamed{id: "msg-" + e.newID(), role: "assistant"}
		e.textAgent = n.Agent
		e.streamed = append(e.streamed, e.text)
		e.write(event{Type: textMessageStart, MessageID: e.text.id, Role: "assistant"})
	}
	e.text.content.WriteString(delta)
	e.write(event{Type: textMessageContent, MessageID: e.text.id, Delta: jsonString(delta)})
}

func (e *emitter) thinkingDelta(n runtime.Event) {
	delta := n.Delta
	if delta == "" {
		return
	}
	if e.text != nil {
		e.closeOpen()
	}
	if e.reasoning == nil {
		e.reasoning = &streamed{id: "msg-" + e.newID(), role: "reasoning"}
		e.streamed = append(e.streamed, e.reasoning)
		e.write(event{Type: reasoningStart, MessageID: e.reasoning.id})
		e.write(event{Type: reasoningMessageStart, MessageID: e.reasoning.id, Role: "reasoning"})
	}
	e.reasoning.content.WriteString(delta)
	e.write(event{Type: reasoningMessageContent, MessageID: e.reasoning.id, Delta: jsonString(delta)})
}

// toolCall sends a tool call's triad: start, all its arguments at once, end.
func (e *emitter) toolCall(id, name string, args json.RawMessage) {
	if isNull(args) {
		args = json.RawMessage("{}")
	}
	argText := string(jsonwrite.Compact(args))
	call := &wireToolCall{ID: id, Type: "function"}
	call.Function.Name, call.Function.Arguments = name, argText
	e.toolCalls[id] = name
	e.streamed = append(e.streamed, &streamed{id: id, role: "assistant", call: call})
	e.write(event{Type: toolCallStart, ToolCallID: id, ToolCallName: name})
	e.write(event{Type: toolCallArgs, ToolCallID: id, Delta: jsonString(argText)})
	e.write(event{Type: toolCallEnd, ToolCallID: id})
}

// toolResult sends TOOL_CALL_RESULT; its content is always a string (a
// JSON text unless the output is a string), which both client generations
// accept.
func (e *emitter) toolResult(callID string, output json.RawMessage) {
	content := string(jsonwrite.Compact(output))
	if isNull(output) {
		content = "null"
	} else if output[0] == '"' {
		content = deltaText(output)
	}
	m := &streamed{id: "msg-" + e.newID(), role: "tool", toolCallID: callID}
	m.content.WriteString(content)
	e.streamed = append(e.streamed, m)
	e.write(event{Type: toolCallResult, MessageID: m.id, ToolCallID: callID, Content: jsonString(content)})
}

// applyState merges a shallow state delta into the client's view and
// returns the keys the client may see, sorted.
func (e *emitter) applyState(delta map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(delta))
	for k, v := range delta {
		if reservedKey(k) {
			continue
		}
		e.state[k] = loggedValue(v)
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// stateDelta sends a state delta as JSON Patch "add" operations on
// top-level members, which always apply to the object the client holds:
// the run's first delta is preceded by a snapshot, so the client's state
// is certainly that object.
func (e *emitter) stateDelta(delta map[string]json.RawMessage) {
	if !e.stateSent {
		before := e.snapshotState()
		keys := e.applyState(delta)
		if len(keys) == 0 {
			return
		}
		e.write(event{Type: stateSnapshot, Snapshot: before})
		e.stateSent = true
		e.writeDelta(keys)
		return
	}
	if keys := e.applyState(delta); len(keys) > 0 {
		e.writeDelta(keys)
	}
}

func (e *emitter) writeDelta(keys []string) {
	type op struct {
		Op    string          `json:"op"`
		Path  string          `json:"path"`
		Value json.RawMessage `json:"value"`
	}
	ops := make([]op, len(keys))
	for i, k := range keys {
		ops[i] = op{Op: "add", Path: "/" + escapePointer(k), Value: e.state[k]}
	}
	b, _ := json.Marshal(ops)
	e.write(event{Type: stateDelta, Delta: b})
}

// escapePointer escapes a key as one RFC 6901 reference token.
func escapePointer(k string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(k)
}

func (e *emitter) snapshotState() json.RawMessage {
	b, _ := json.Marshal(e.state)
	return b
}

func (e *emitter) messagesJSON() json.RawMessage {
	all := make([]any, 0, len(e.messages)+len(e.streamed))
	for _, m := range e.messages {
		all = append(all, m)
	}
	for _, m := range e.streamed {
		all = append(all, m)
	}
	b, _ := json.Marshal(all)
	return b
}

// finish maps the response's boundary (response.completed, error, or
// response.in_progress) and ends the run. code is the failure's stable
// code, when the boundary is an error.
func (e *emitter) finish(n runtime.Event, code string) {
	e.closeOpen()
	var env runtime.Envelope // response.completed: the response at its boundary
	if n.Envelope != nil {
		env = *n.Envelope
	}
	switch {
	case n.Type == runtime.EventError:
		e.fail(n.Error, code)
	case n.Type == runtime.EventInProgress:
		value, _ := json.Marshal(map[string]any{"responseId": n.ResponseID, "sessionId": n.SessionID, "pendingAction": nil})
		e.write(event{Type: custom, Name: "harnest.external_wait", Value: value})
		e.end(statusResult(runtime.StatusInProgress, n.ResponseID, ""), nil)
	case env.Status == runtime.StatusCompleted:
		e.end(env.Result, nil)
	case env.Status == runtime.StatusRequiresAction && env.RequiredAction != nil:
		e.suspend(*env.RequiredAction, n.ResponseID)
	case env.Status == runtime.StatusDenied:
		e.end(statusResult(runtime.StatusDenied, n.ResponseID, env.ApprovalID), nil)
	case env.Status == runtime.StatusCancelled:
		var o *outcome
		if !e.legacy {
			o = &outcome{Type: "cancelled"} // 0.0.x clients reject this outcome
		}
		e.end(statusResult(runtime.StatusCancelled, n.ResponseID, env.ApprovalID), o)
	default:
		e.fail("Agent execution failed", runtime.CodeInvocationFailed)
	}
}

// statusResult is the RUN_FINISHED result of a response that ended
// without an answer.
func statusResult(status, responseID, approvalID string) json.RawMessage {
	b, _ := json.Marshal(struct {
		Status     string `json:"status"`
		ResponseID string `json:"responseId"`
		ApprovalID string `json:"approvalId,omitempty"`
	}{status, responseID, approvalID})
	return b
}

func (e *emitter) end(result json.RawMessage, o *outcome) {
	if isNull(result) {
		result = nil
	}
	e.write(event{Type: runFinished, ThreadID: e.threadID, RunID: e.runID, Result: result, Outcome: o})
	e.terminal = true
}

// fail ends the run with RUN_ERROR.
func (e *emitter) fail(message, code string) {
	e.closeOpen()
	if message == "" {
		message = "Agent execution failed"
	}
	e.write(event{Type: runError, Message: message, Code: code})
	e.terminal = true
}

// clientToolCallID is the tool call ID a client tool is shown under: the
// agent's own call ID when it has one, else the wait's ID.
func clientToolCallID(a runtime.RequiredAction, responseID string) string {
	if a.CallID != "" && a.CallID != responseID {
		return a.CallID
	}
	return a.ID
}

// suspend ends a run whose response waits: a frontend tool the client
// offered is an ordinary tool call the client answers in its next run;
// an approval, or a client tool the client did not offer, is an
// interrupt the next run resumes. The state and the conversation are
// restated first, so the client can resume from them.
func (e *emitter) suspend(a runtime.RequiredAction, responseID string) {
	metadata, _ := json.Marshal(map[string]runtime.RequiredAction{"harnest": a})
	var interrupts []interrupt
	switch a.Type {
	case "client_tool":
		callID := clientToolCallID(a, responseID)
		if e.toolCalls[callID] != a.Name {
			e.toolCall(callID, a.Name, loggedValue(a.Arguments))
		}
		if e.frontend[a.Name] {
			value, _ := json.Marshal(struct {
				runtime.RequiredAction
				ToolCallID string `json:"toolCallId"`
			}{a, callID})
			e.write(event{Type: custom, Name: "harnest.client_tool", Value: value})
		} else {
			interrupts = append(interrupts, interrupt{ID: a.ID, Reason: "tool_call", ToolCallID: callID,
				Message: "Run the client tool " + a.Name, ExpiresAt: a.ExpiresAt, Metadata: metadata})
		}
	default: // human_approval
		interrupts = append(interrupts, interrupt{ID: a.ID, Reason: "confirmation", Message: a.Message,
			ResponseSchema: approvalResponseSchema(a), ExpiresAt: a.ExpiresAt, Metadata: metadata})
	}
	e.write(event{Type: stateSnapshot, Snapshot: e.snapshotState()})
	e.stateSent = true
	e.write(event{Type: messagesSnapshot, Messages: e.messagesJSON()})
	var o *outcome
	if len(interrupts) > 0 {
		o = &outcome{Type: "interrupt", Interrupts: interrupts}
	}
	e.end(nil, o)
}
