package openaiapi

import (
	"encoding/json"
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
	Text   string // message and reasoning

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

// outputText is an output_text content part.
type outputText struct {
	Type        string            `json:"type"` // output_text
	Text        string            `json:"text"`
	Annotations []json.RawMessage `json:"annotations"`
	Logprobs    []json.RawMessage `json:"logprobs"`
}

func newOutputText(text string) outputText {
	return outputText{Type: "output_text", Text: text, Annotations: []json.RawMessage{}, Logprobs: []json.RawMessage{}}
}

// reasoningText is a reasoning_text content part.
type reasoningText struct {
	Type string `json:"type"` // reasoning_text
	Text string `json:"text"`
}

// part is the item's content part (messages and reasoning items have one).
func (it *orItem) part() any {
	if it.Type == "reasoning" {
		return reasoningText{Type: "reasoning_text", Text: it.Text}
	}
	return newOutputText(it.Text)
}

// MarshalJSON writes the item in the specification's shape for its type.
func (it *orItem) MarshalJSON() ([]byte, error) {
	switch it.Type {
	case "message":
		content := []any{}
		if it.Status != "in_progress" || it.Text != "" {
			content = append(content, it.part())
		}
		return json.Marshal(struct {
			Type    string `json:"type"`
			ID      string `json:"id"`
			Status  string `json:"status"`
			Role    string `json:"role"`
			Content []any  `json:"content"`
		}{"message", it.ID, it.Status, "assistant", content})
	case "reasoning":
		content := []any{}
		if it.Status != "in_progress" || it.Text != "" {
			content = append(content, it.part())
		}
		return json.Marshal(struct {
			Type    string `json:"type"`
			ID      string `json:"id"`
			Status  string `json:"status"`
			Summary []any  `json:"summary"`
			Content []any  `json:"content"`
		}{"reasoning", it.ID, it.Status, []any{}, content})
	case "function_call":
		return json.Marshal(struct {
			Type      string `json:"type"`
			ID        string `json:"id"`
			Status    string `json:"status"`
			CallID    string `json:"call_id"`
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		}{"function_call", it.ID, it.Status, it.CallID, it.Name, it.Arguments})
	default: // mcp_approval_request
		return json.Marshal(struct {
			Type        string `json:"type"`
			ID          string `json:"id"`
			ServerLabel string `json:"server_label"`
			Name        string `json:"name"`
			Arguments   string `json:"arguments"`
		}{"mcp_approval_request", it.ID, approvalServerLabel, it.Name, it.Arguments})
	}
}

// approvalServerLabel is the server_label of the approval requests this
// door sends: the action is the agent's own, not an MCP server's.
const approvalServerLabel = "harnest"
