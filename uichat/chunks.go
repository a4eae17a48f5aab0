package uichat

import (
	"encoding/json"
	"strconv"

	"github.com/harnest/harnest/internal/jsonwrite"
	"github.com/harnest/harnest/runtime"
)

// encoder turns a response's harnest events into the UI message stream's
// chunks (start, start-step, text-*, reasoning-*, tool-*, data-*, error,
// finish-step, finish), keeping the parts well formed: a text or
// reasoning part is opened before its first delta and closed before
// anything else, and a tool's input is announced before its output or
// approval. Part IDs are named after the harnest sequence that opened
// them, so a replay writes the same chunks as the live stream did.
type encoder struct {
	messageID string
	write     func(chunk []byte) error

	text, reasoning string          // the open text and reasoning parts ("" for none)
	tools           map[string]bool // tool call IDs whose input the client has
	artifacts       map[string]*runtime.ArtifactInfo
	usage           *runtime.Usage
	status          string // the boundary's status, once reached
	errorText       string // the error the stream ends with, if any

	// answered is the tool call an answer in the request resumed (its
	// output or denial ends the continuation's tool part).
	answered string
	// approvalCall is the tool call of the last approval asked for.
	approvalCall string
	// replay holds a wait's chunks until its boundary says whether the
	// wait is still pending (the client must answer it) or was answered
	// (later events follow); nil when the stream is live.
	replay *replayWaits
}

// replayWaits is what a replay knows of the waits it meets.
type replayWaits struct {
	state  func(waitID string) string // the wait's status: "pending" until answered
	held   []byte                     // the held wait's chunks, one per line
	waitID string
	callID string
	client bool // the held wait is a client tool (else an approval)
}

func newEncoder(messageID string, write func([]byte) error) *encoder {
	return &encoder{messageID: messageID, write: write, tools: map[string]bool{}, artifacts: map[string]*runtime.ArtifactInfo{}}
}

// chunk writes one chunk given as alternating keys and values. Strings,
// booleans and raw JSON are appended as they are (the text deltas of a
// turn cost no reflection); other values are marshalled.
func (e *encoder) chunk(typ string, kv ...any) error {
	b := make([]byte, 0, 64)
	b = append(b, `{"type":`...)
	b = jsonwrite.AppendString(b, typ)
	for i := 0; i+1 < len(kv); i += 2 {
		b = append(b, ',')
		b = jsonwrite.AppendString(b, kv[i].(string))
		b = append(b, ':')
		var err error
		switch v := kv[i+1].(type) {
		case string:
			b = jsonwrite.AppendString(b, v)
		case bool:
			b = strconv.AppendBool(b, v)
		case json.RawMessage:
			b, err = jsonwrite.AppendRaw(b, v)
		default:
			var raw []byte
			if raw, err = json.Marshal(v); err == nil {
				b = append(b, raw...)
			}
		}
		if err != nil {
			return err
		}
	}
	b = append(b, '}')
	return e.write(b)
}

// start opens the message: its ID is the harnest response's, so a resumed
// stream replaces the message it replays.
func (e *encoder) start() error {
	if err := e.chunk("start", "messageId", e.messageID); err != nil {
		return err
	}
	return e.chunk("start-step")
}

// closeParts ends the open text and reasoning parts.
func (e *encoder) closeParts() error {
	if e.text != "" {
		if err := e.chunk("text-end", "id", e.text); err != nil {
			return err
		}
		e.text = ""
	}
	if e.reasoning != "" {
		if err := e.chunk("reasoning-end", "id", e.reasoning); err != nil {
			return err
		}
		e.reasoning = ""
	}
	return nil
}

// event writes the chunks of one harnest event; done is true at the
// boundary that ends the stream (the final receipt, an error, or a wait
// the client must answer).
func (e *encoder) event(ev runtime.Event, env *runtime.EnvelopeBody) (done bool, err error) {
	switch ev.Type {
	case runtime.EventTextDelta:
		return false, e.textDelta(ev)
	case runtime.EventThinkingDelta:
		return false, e.reasoningDelta(ev)
	case runtime.EventCompleted:
		return e.boundary(env)
	case runtime.EventError:
		e.errorText = ev.Error
		if e.errorText == "" {
			e.errorText = "The response failed"
		}
		e.status = runtime.StatusFailed
		return true, e.closeParts()
	}
	if err := e.closeParts(); err != nil {
		return false, err
	}
	switch ev.Type {
	case runtime.EventToolCall:
		return false, e.toolInput(ev.ID, ev.Name, ev.Arguments, true)
	case runtime.EventToolResult:
		return false, e.toolOutput(ev)
	case runtime.EventApproval:
		return false, e.approval(ev.Approval)
	case runtime.EventClientTool:
		return false, e.clientTool(ev.ClientTool)
	case runtime.EventAgentActivity:
		return false, e.chunk("data-activity", "data", activity{Activity: ev.Activity, Target: ev.Target, Code: ev.Code, Agent: ev.Agent})
	case runtime.EventArtifact:
		return false, e.artifact(ev.Artifact)
	case runtime.EventStateDelta:
		if len(ev.StateDelta) > 0 {
			return false, e.chunk("data-state", "data", ev.StateDelta, "transient", true)
		}
	case runtime.EventDecisionResult:
		value := json.RawMessage("null")
		if len(ev.Value) > 0 && json.Valid(ev.Value) {
			value = ev.Value
		}
		return false, e.chunk("data-decision", "data", value)
	case runtime.EventAgentMetadata:
		if ev.Usage != nil {
			e.addUsage(*ev.Usage)
		}
	case runtime.EventSteered:
		// A steering message the turn took (AI SDK 7's steering part).
		if st := ev.Steered; st != nil {
			return false, e.chunk("steering-message", "id", st.ID, "parts", []textPart{{Type: "text", Text: st.Input}})
		}
	case runtime.EventRetracted:
		// What the lost attempt streamed is withdrawn: the step's parts go.
		if err := e.chunk("reset-step"); err != nil {
			return false, err
		}
		return false, e.chunk("start-step")
	}
	return false, nil
}

// textPart is a text part of a steering message.
type textPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// activity is the data of a data-activity part.
type activity struct {
	Activity string `json:"activity"`
	Target   string `json:"target,omitempty"`
	Code     string `json:"code,omitempty"`
	Agent    string `json:"agent,omitempty"`
}

// partKind names the chunks of a streamed part: its IDs' prefix and its
// start and delta chunk types.
type partKind struct{ idPrefix, start, delta string }

var (
	textKind      = partKind{"text_", "text-start", "text-delta"}
	reasoningKind = partKind{"reasoning_", "reasoning-start", "reasoning-delta"}
)

func (e *encoder) textDelta(ev runtime.Event) error {
	return e.partDelta(textKind, &e.text, e.reasoning, ev)
}

func (e *encoder) reasoningDelta(ev runtime.Event) error {
	return e.partDelta(reasoningKind, &e.reasoning, e.text, ev)
}

// partDelta writes a delta of a part of kind: it ends the other kind's
// open part (other is its ID), starts one of its own when none is open
// (open is its ID), then writes the delta.
func (e *encoder) partDelta(kind partKind, open *string, other string, ev runtime.Event) error {
	if other != "" {
		if err := e.closeParts(); err != nil {
			return err
		}
	}
	if *open == "" {
		*open = kind.idPrefix + strconv.Itoa(ev.Sequence)
		if err := e.chunk(kind.start, "id", *open); err != nil {
			return err
		}
	}
	return e.chunk(kind.delta, "id", *open, "delta", ev.Delta)
}

// toolInput announces a tool call the agent runs itself (dynamic: the
// client has no definition of it).
func (e *encoder) toolInput(callID, name string, args json.RawMessage, agentRuns bool) error {
	if e.tools[callID] {
		return nil
	}
	e.tools[callID] = true
	input := any(json.RawMessage("{}"))
	if len(args) > 0 && json.Valid(args) {
		input = args
	}
	if err := e.chunk("tool-input-start", "toolCallId", callID, "toolName", name, "dynamic", true, "providerExecuted", agentRuns); err != nil {
		return err
	}
	return e.chunk("tool-input-available", "toolCallId", callID, "toolName", name, "input", input, "dynamic", true, "providerExecuted", agentRuns)
}

func (e *encoder) toolOutput(ev runtime.Event) error {
	if err := e.toolInput(ev.CallID, ev.Name, nil, true); err != nil {
		return err
	}
	output := any(nil)
	if len(ev.Output) > 0 && json.Valid(ev.Output) {
		output = ev.Output
	}
	return e.chunk("tool-output-available", "toolCallId", ev.CallID, "output", output, "dynamic", true, "providerExecuted", true)
}

// approval asks the client to approve a tool call: its tool part awaits
// approval (tool-approval-request); the approval's ID is harnest's.
func (e *encoder) approval(a *runtime.ApprovalInfo) error {
	if a == nil {
		return nil
	}
	callID := a.CallID
	if callID == "" {
		callID = a.ID
	}
	return e.holdWait(a.ID, callID, false, func() error {
		if err := e.toolInput(callID, a.Action, a.Arguments, true); err != nil {
			return err
		}
		kv := []any{"approvalId", a.ID, "toolCallId", callID}
		if a.Message != "" {
			kv = append(kv, "reason", a.Message)
		}
		return e.chunk("tool-approval-request", kv...)
	})
}

// clientTool asks the client to run one of its tools: a static tool part
// awaiting output, whose toolCallId is harnest's client tool request ID.
func (e *encoder) clientTool(c *runtime.ClientToolInfo) error {
	if c == nil {
		return nil
	}
	return e.holdWait(c.ID, c.ID, true, func() error {
		if e.tools[c.ID] {
			return nil
		}
		e.tools[c.ID] = true
		input := any(json.RawMessage("{}"))
		if len(c.Arguments) > 0 && json.Valid(c.Arguments) {
			input = c.Arguments
		}
		if err := e.chunk("tool-input-start", "toolCallId", c.ID, "toolName", c.Name); err != nil {
			return err
		}
		return e.chunk("tool-input-available", "toolCallId", c.ID, "toolName", c.Name, "input", input)
	})
}

// artifact writes the artifact as one data part that each chunk replaces
// (data-artifact, id = the artifact's ID), with the parts so far.
func (e *encoder) artifact(a *runtime.ArtifactInfo) error {
	if a == nil {
		return nil
	}
	cur := e.artifacts[a.ID]
	if cur == nil || !a.Append {
		c := *a
		c.Parts = append([]runtime.ArtifactPart(nil), a.Parts...)
		cur = &c
		e.artifacts[a.ID] = cur
	} else {
		cur.Parts = append(cur.Parts, a.Parts...)
		cur.LastChunk = a.LastChunk
	}
	return e.chunk("data-artifact", "id", a.ID, "data", cur)
}

func (e *encoder) addUsage(u runtime.Usage) {
	if e.usage == nil {
		e.usage = &runtime.Usage{}
	}
	e.usage.InputTokens += u.InputTokens
	e.usage.OutputTokens += u.OutputTokens
	e.usage.TotalTokens += u.TotalTokens
}
