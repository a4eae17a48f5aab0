package chat

import (
	"bytes"
	"encoding/json"
	"errors"
)

// Roles of messages.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Part types.
const (
	PartText     = "text"
	PartImageURL = "image_url"
)

// Message is one message of the conversation, encoded exactly as Chat
// Completions wants it.
type Message struct {
	Role string `json:"role"` // system | user | assistant | tool
	// Content is the text or the parts. An assistant message with tool
	// calls and no content encodes it as null.
	Content    Content    `json:"content"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`   // assistant
	ToolCallID string     `json:"tool_call_id,omitempty"` // tool: the call this answers
}

// Content is a message's content: plain text, or parts when Parts is not
// nil (Parts wins).
type Content struct {
	Text  string
	Parts []Part
}

// Text is content made of one string.
func Text(s string) Content { return Content{Text: s} }

// Part is one content part: text, or an image by URL.
type Part struct {
	Type     string    `json:"type"` // PartText or PartImageURL
	Text     string    `json:"text,omitempty"`
	ImageURL *ImageURL `json:"image_url,omitempty"`
}

// ImageURL is an image part's image: a data: URL (data:image/png;base64,...)
// or an https URL.
type ImageURL struct {
	URL string `json:"url"`
	// Detail is the optional fidelity hint ("low", "high", "auto").
	Detail string `json:"detail,omitempty"`
}

// ToolCall is a call of a tool the model asked for.
type ToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"` // "function" (the default when empty)
	Function FunctionCall `json:"function"`
}

// FunctionCall is the tool and arguments of a call.
type FunctionCall struct {
	Name string `json:"name"`
	// Arguments is the JSON text the model wrote; it may be invalid JSON.
	Arguments string `json:"arguments"`
}

// Tool is a tool the model may call.
type Tool struct {
	Type     string      `json:"type"` // "function" (the default when empty)
	Function FunctionDef `json:"function"`
}

// FunctionDef describes a tool to the model.
type FunctionDef struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Parameters is the JSON Schema of the arguments (an object schema).
	Parameters json.RawMessage `json:"parameters,omitempty"`
}

// typeFunction is the one tool type of Chat Completions.
const typeFunction = "function"

// MarshalJSON encodes Parts as an array when set, else Text as a string.
func (c Content) MarshalJSON() ([]byte, error) {
	if c.Parts != nil {
		return json.Marshal(c.Parts)
	}
	return json.Marshal(c.Text)
}

// UnmarshalJSON accepts a string, an array of parts or null.
func (c *Content) UnmarshalJSON(b []byte) error {
	*c = Content{}
	b = bytes.TrimSpace(b)
	switch {
	case bytes.Equal(b, []byte("null")):
		return nil
	case len(b) > 0 && b[0] == '"':
		return json.Unmarshal(b, &c.Text)
	case len(b) > 0 && b[0] == '[':
		c.Parts = []Part{}
		return json.Unmarshal(b, &c.Parts)
	}
	return errors.New("chat: message content is neither a string, an array of parts nor null")
}

// isEmpty reports whether c has no text and no parts.
func (c Content) isEmpty() bool { return c.Parts == nil && c.Text == "" }

// MarshalJSON encodes the message, with null content for an assistant
// message that only calls tools and "function" for untyped tool calls.
func (m Message) MarshalJSON() ([]byte, error) {
	wire := struct {
		Role       string     `json:"role"`
		Content    any        `json:"content"`
		ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
		ToolCallID string     `json:"tool_call_id,omitempty"`
	}{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID}
	if m.Role == RoleAssistant && len(m.ToolCalls) > 0 && m.Content.isEmpty() {
		wire.Content = nil
	}
	for _, call := range m.ToolCalls {
		if call.Type == "" {
			call.Type = typeFunction
		}
		wire.ToolCalls = append(wire.ToolCalls, call)
	}
	return json.Marshal(wire)
}

// MarshalJSON always sends a text part's text, even when empty.
func (p Part) MarshalJSON() ([]byte, error) {
	type plain Part // without this method
	if p.Type != PartText {
		return json.Marshal(plain(p))
	}
	return json.Marshal(struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}{p.Type, p.Text})
}
