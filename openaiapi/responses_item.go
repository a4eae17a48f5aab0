package openaiapi

import (
	"github.com/harnest/harnest/internal/jsonwrite"
)

// orItem is one output item of an Open Responses response: a message, a
// reasoning item (the agent's thinking, as the output policy lets it
// through), a function_call (a client tool the agent asks the caller to
// run) or an mcp_approval_request (an action waiting for the caller's
// approval).
type orItem struct {
	Type   string // message, reasoning, function_call or mcp_approval_request
	ID     string
	Status string // in_progress, completed or incomplete
	// text of a message or reasoning item, grown by its deltas (a string
	// would copy the whole text at every delta).
	text []byte

	// function_call and mcp_approval_request
	CallID    string
	Name      string
	Arguments string

	// sequence is the harnest sequence of the event that started the item.
	sequence int
	// withdrawn is set when a retraction took the item back: it is not part
	// of the response's output.
	withdrawn bool
}

// approvalServerLabel is the server_label of the approval requests this
// door sends: the action is the agent's own, not an MCP server's.
const approvalServerLabel = "harnest"

// appendPart appends the item's content part: output_text of a message,
// reasoning_text of a reasoning item.
func (it *orItem) appendPart(b []byte) []byte {
	o := jsonwrite.Begin(b)
	if it.Type == "reasoning" {
		o.Str("type", "reasoning_text")
		o.Key("text")
		o.B = jsonwrite.AppendString(o.B, string(it.text))
		return o.End()
	}
	o.Str("type", "output_text")
	o.Key("text")
	o.B = jsonwrite.AppendString(o.B, string(it.text))
	o.Key("annotations")
	o.B = append(o.B, "[]"...)
	o.Key("logprobs")
	o.B = append(o.B, "[]"...)
	return o.End()
}

// appendJSON appends the item in the specification's shape for its type
// (written directly: a stream writes every item twice, and the response
// object once more).
func (it *orItem) appendJSON(b []byte) []byte {
	o := jsonwrite.Begin(b)
	o.Str("type", it.Type)
	o.Str("id", it.ID)
	switch it.Type {
	case "message", "reasoning":
		o.Str("status", it.Status)
		if it.Type == "message" {
			o.Str("role", "assistant")
		} else {
			o.Key("summary")
			o.B = append(o.B, "[]"...)
		}
		o.Key("content")
		o.B = append(o.B, '[')
		if it.Status != "in_progress" || len(it.text) > 0 {
			o.B = it.appendPart(o.B)
		}
		o.B = append(o.B, ']')
	case "function_call":
		o.Str("status", it.Status)
		o.Str("call_id", it.CallID)
		o.Str("name", it.Name)
		o.Str("arguments", it.Arguments)
	default: // mcp_approval_request
		o.Str("server_label", approvalServerLabel)
		o.Str("name", it.Name)
		o.Str("arguments", it.Arguments)
	}
	return o.End()
}

// MarshalJSON writes the item as appendJSON does.
func (it *orItem) MarshalJSON() ([]byte, error) { return it.appendJSON(nil), nil }
