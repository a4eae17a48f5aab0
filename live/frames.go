package live

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/harnest/harnest/internal/jsonwrite"
	"github.com/harnest/harnest/runtime"
)

// Types of the frames a client sends.
const (
	frameConnect    = "connect"
	frameCreate     = "response.create"
	frameCancel     = "response.cancel"
	frameDecision   = "approval.decision"
	frameToolResult = "client_tool.result"
	frameClose      = "session.close"
)

// Types of the frames only live sends (the others are the runtime's events).
const (
	frameConnected = "session.connected"
	frameResolved  = "approval.resolved"
)

// Error sentences of the protocol, as the reference words them.
const (
	msgFirstFrame     = "First frame must be a connect request"
	msgInvalidInput   = "Invalid live input frame"
	msgMetadata       = "metadata must be an object"
	msgRequestID      = "requestId must be a string"
	msgContent        = "Invalid content input"
	msgInvalidCancel  = "Invalid response.cancel frame"
	msgInvalidDecide  = "Invalid approval.decision frame"
	msgInvalidResult  = "Expected client_tool.result for the pending client tool request"
	msgOnlyCancel     = "Only response.cancel is accepted while no action is pending"
	msgDecided        = "approval decision was already submitted"
	msgToolSubmitted  = "client tool result was already submitted"
	msgFrameLimit     = "Frame limit exceeded"
	msgDisabled       = "Live connections are disabled"
	msgAuthRequired   = "Authentication required"
	msgInvalidToken   = "The bearer token is not valid"
	msgOriginRejected = "Origin not allowed"
	msgShuttingDown   = "Server shutting down"
	msgOnBusy         = "onBusy must be reject, enqueue, interrupt or rollback"
)

// allowedKeys are the members each client frame may have; the frames with
// required members are checked for them by decodeFrame.
var allowedKeys = map[string][]string{
	frameConnect:    {"type", "sessionId"},
	frameCreate:     {"type", "input", "requestId", "metadata", "onBusy"},
	frameCancel:     {"type", "responseId"},
	frameDecision:   {"type", "responseId", "approvalId", "decision", "message", "arguments", "result"},
	frameToolResult: {"type", "requestId", "output"},
	frameClose:      {"type"},
	frameSteer:      {"type", "responseId", "input", "requestId"}, // steer.go
}

// invalidMessage is what the client is told when a frame of a known type
// is malformed.
var invalidMessage = map[string]string{
	frameConnect: msgFirstFrame, frameCreate: msgInvalidInput, frameCancel: msgInvalidCancel,
	frameDecision: msgInvalidDecide, frameToolResult: msgInvalidResult, frameClose: msgInvalidInput,
	frameSteer: msgInvalidSteer,
}

// frame is one decoded client frame. Only the members of its type are set.
type frame struct {
	Type string

	SessionID string // connect; "" starts a new session

	Input     string // response.create
	Parts     []runtime.InputPart
	Object    bool            // response.create: input was an object (a typed agent's)
	RequestID *string         // response.create: the caller's correlation ID
	Metadata  json.RawMessage // response.create: a compact object, or nil
	OnBusy    string          // response.create: the busy-session strategy ("" for the agent's)

	ResponseID string                 // response.cancel, approval.decision
	ApprovalID string                 // approval.decision
	Answer     runtime.ApprovalAnswer // approval.decision: the decision and the members it takes (approval_answer.go)

	ToolRequestID string          // client_tool.result: the clientTool.id it answers
	Output        json.RawMessage // client_tool.result: any JSON value
}

// frameError is a frame that cannot be used; Msg is the sentence for the
// client, specific to the frame's type when the type was recognised.
type frameError struct{ Msg string }

func (e *frameError) Error() string { return e.Msg }

// decodeFrame decodes one client frame strictly: a UTF-8 JSON object whose
// "type" names a known frame and whose members are exactly those of the
// type. On failure Type is still set when the type was recognised, so the
// caller can answer for the frame it meant to send.
func decodeFrame(data []byte) (frame, *frameError) {
	var f frame
	if !utf8.Valid(data) || !json.Valid(data) {
		return f, &frameError{msgInvalidInput}
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(data, &obj) != nil || obj == nil {
		return f, &frameError{msgInvalidInput}
	}
	typ, ok := jsonString(obj["type"])
	allowed, known := allowedKeys[typ]
	if !ok || !known {
		return f, &frameError{msgInvalidInput}
	}
	f.Type = typ
	invalid := invalidMessage[typ]
	for k := range obj {
		if !contains(allowed, k) {
			return f, &frameError{invalid}
		}
	}
	switch typ {
	case frameConnect:
		if raw, has := obj["sessionId"]; has {
			id, ok := jsonString(raw)
			if !ok || strings.TrimSpace(id) == "" {
				return f, &frameError{invalid}
			}
			f.SessionID = id
		}
	case frameCreate:
		return decodeCreate(f, obj)
	case frameSteer:
		return decodeSteer(f, obj)
	case frameCancel:
		id, ok := jsonString(obj["responseId"])
		if !ok {
			return f, &frameError{invalid}
		}
		f.ResponseID = id
	case frameDecision:
		rid, ok1 := jsonString(obj["responseId"])
		aid, ok2 := jsonString(obj["approvalId"])
		answer, err := decisionAnswer(obj)
		if !ok1 || !ok2 || err != nil {
			return f, &frameError{invalid}
		}
		f.ResponseID, f.ApprovalID, f.Answer = rid, aid, answer
	case frameToolResult:
		id, ok := jsonString(obj["requestId"])
		output, has := obj["output"]
		if !ok || !has {
			return f, &frameError{invalid}
		}
		f.ToolRequestID, f.Output = id, jsonwrite.Compact(output)
	}
	return f, nil
}

// decodeCreate checks response.create in the reference's order: the input,
// then metadata, then requestId. The input's size is the runtime's check.
func decodeCreate(f frame, obj map[string]json.RawMessage) (frame, *frameError) {
	raw, has := obj["input"]
	if !has {
		return f, &frameError{msgInvalidInput}
	}
	if len(raw) > 0 && raw[0] == '[' {
		input, parts, ok := parseParts(raw)
		if !ok {
			return f, &frameError{msgContent}
		}
		f.Input, f.Parts = input, parts
	} else if len(raw) > 0 && raw[0] == '{' {
		// A typed input: one data part, checked by the runtime against
		// the agent's input schema (runtime/contract.go).
		data := jsonwrite.Compact(raw)
		f.Input, f.Parts, f.Object = string(data), []runtime.InputPart{{Type: "data", Data: data}}, true
	} else {
		input, ok := jsonString(raw)
		if !ok || strings.TrimSpace(input) == "" {
			return f, &frameError{msgInvalidInput}
		}
		f.Input = input
	}
	if meta, has := obj["metadata"]; has {
		if len(meta) == 0 || meta[0] != '{' {
			return f, &frameError{msgMetadata}
		}
		f.Metadata = jsonwrite.Compact(meta)
	}
	if rid, has := obj["requestId"]; has && string(rid) != "null" {
		id, ok := jsonString(rid)
		if !ok {
			return f, &frameError{msgRequestID}
		}
		f.RequestID = &id
	}
	if raw, has := obj["onBusy"]; has {
		v, ok := jsonString(raw)
		if !ok || v == "" || !runtime.ValidOnBusy(v) {
			return f, &frameError{msgOnBusy}
		}
		f.OnBusy = v
	}
	return f, nil
}

// parseParts reads an input given as content parts, as POST /responses
// takes it: {"type":"text","text":...} and
// {"type":"image"|"audio"|"video"|"file","assetId":...}; the text parts
// joined with newlines are the input's text.
func parseParts(raw json.RawMessage) (string, []runtime.InputPart, bool) {
	var items []map[string]json.RawMessage
	if json.Unmarshal(raw, &items) != nil || len(items) == 0 || len(items) > 64 {
		return "", nil, false
	}
	var texts []string
	parts := make([]runtime.InputPart, 0, len(items))
	for _, item := range items {
		typ, ok := jsonString(item["type"])
		if !ok || len(item) != 2 {
			return "", nil, false
		}
		switch typ {
		case "text":
			text, ok := jsonString(item["text"])
			if !ok {
				return "", nil, false
			}
			texts = append(texts, text)
			parts = append(parts, runtime.InputPart{Type: "text", Text: text})
		case "image", "audio", "video", "file":
			id, ok := jsonString(item["assetId"])
			if !ok || id == "" {
				return "", nil, false
			}
			parts = append(parts, runtime.InputPart{Type: typ, AssetID: id})
		default:
			return "", nil, false
		}
	}
	input := strings.Join(texts, "\n")
	if strings.TrimSpace(input) == "" && len(texts) == len(parts) {
		return "", nil, false
	}
	return input, parts, true
}

// jsonString decodes a JSON string member; false when absent or another
// kind of value.
func jsonString(raw json.RawMessage) (string, bool) {
	var s string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// Frames the server writes itself. Field order follows the reference.

func connectedFrame(sessionID string) []byte {
	return mustJSON(struct {
		Type      string `json:"type"`
		SessionID string `json:"sessionId"`
	}{frameConnected, sessionID})
}

// idleError is an error outside any response: the socket stays open unless
// a close follows.
func idleError(msg string) []byte {
	return mustJSON(struct {
		Type  string `json:"type"`
		Error string `json:"error"`
	}{runtime.EventError, msg})
}

// responseError ends a response: it carries the response's next sequence
// and its requestId (null when the client gave none).
func responseError(seq int, responseID, sessionID string, requestID json.RawMessage, msg string) []byte {
	return mustJSON(struct {
		Type       string          `json:"type"`
		Sequence   int             `json:"sequence"`
		ResponseID string          `json:"responseId"`
		SessionID  string          `json:"sessionId"`
		RequestID  json.RawMessage `json:"requestId"`
		Error      string          `json:"error"`
	}{runtime.EventError, seq, responseID, sessionID, orNull(requestID), msg})
}

func orNull(v json.RawMessage) json.RawMessage {
	if v == nil {
		return json.RawMessage("null")
	}
	return v
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic("live: cannot encode a frame: " + err.Error())
	}
	return b
}

var sequenceKey = []byte(`,"sequence":`)

// reframe re-encodes one of the runtime's event frames for the socket: its
// sequence becomes the socket's own count for the response (live numbers
// the frames it sends, so approval.resolved fits in and dropped frames leave
// no gap), and requestId is added when the client gave one, or as null when
// always is set (response.created and error frames carry it either way).
//
// The runtime writes every event as {"type":...,"sequence":N,...}; the
// frame is spliced rather than decoded, and decoded only if it is not of
// that shape.
func reframe(raw []byte, seq int, requestID json.RawMessage, always bool) []byte {
	if requestID == nil && always {
		requestID = json.RawMessage("null")
	}
	i := bytes.Index(raw, sequenceKey)
	if i < 0 || len(raw) < 2 || raw[len(raw)-1] != '}' {
		return reframeSlow(raw, seq, requestID)
	}
	start := i + len(sequenceKey)
	end := start
	for end < len(raw) && raw[end] >= '0' && raw[end] <= '9' {
		end++
	}
	if end == start {
		return reframeSlow(raw, seq, requestID)
	}
	out := make([]byte, 0, len(raw)+len(requestID)+24)
	out = append(out, raw[:start]...)
	out = strconv.AppendInt(out, int64(seq), 10)
	out = append(out, raw[end:len(raw)-1]...)
	if requestID != nil {
		out = append(out, `,"requestId":`...)
		out = append(out, requestID...)
	}
	return append(out, '}')
}

// reframeSlow is reframe for a frame of an unexpected shape.
func reframeSlow(raw []byte, seq int, requestID json.RawMessage) []byte {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil || obj == nil {
		return raw
	}
	obj["sequence"] = json.RawMessage(strconv.Itoa(seq))
	if requestID != nil {
		obj["requestId"] = requestID
	}
	return mustJSON(obj)
}
