package uichat

import (
	"encoding/json"
	"strings"

	"github.com/harnest/harnest/runtime"
)

// chatRequest is the body DefaultChatTransport posts: the chat's ID, its
// messages (or only the newest, as "message", for clients that send just
// that), what triggered the request, and what the app added to the body:
// "tools" (client tools the agent may call: [{name, description?,
// parameters}]) and "metadata" (the response's caller metadata).
type chatRequest struct {
	ID        string          `json:"id"`
	Messages  []uiMessage     `json:"messages"`
	Message   *uiMessage      `json:"message"`
	Trigger   string          `json:"trigger"`
	MessageID string          `json:"messageId"`
	Tools     json.RawMessage `json:"tools"`
	Metadata  json.RawMessage `json:"metadata"`
}

// uiMessage is a UIMessage: {id, role, parts, metadata?}.
type uiMessage struct {
	ID    string   `json:"id"`
	Role  string   `json:"role"`
	Parts []uiPart `json:"parts"`
}

// uiPart is one part of a UIMessage, with the fields this door reads:
// text, file, and tool parts (type "tool-<name>" or "dynamic-tool") with
// their state, output and approval.
type uiPart struct {
	Type       string          `json:"type"`
	Text       string          `json:"text"`
	URL        string          `json:"url"`
	MediaType  string          `json:"mediaType"`
	Filename   string          `json:"filename"`
	ToolCallID string          `json:"toolCallId"`
	State      string          `json:"state"`
	Output     json.RawMessage `json:"output"`
	ErrorText  string          `json:"errorText"`
	Approval   *struct {
		ID       string `json:"id"`
		Approved *bool  `json:"approved"`
		// Reason is the user's reason (AI SDK's addToolApprovalResponse);
		// a denial's is told to the agent.
		Reason string `json:"reason"`
	} `json:"approval"`
}

func (p uiPart) isTool() bool { return p.Type == "dynamic-tool" || strings.HasPrefix(p.Type, "tool-") }

// last is the newest message of the request.
func (c *chatRequest) last() *uiMessage {
	if c.Message != nil {
		return c.Message
	}
	if len(c.Messages) == 0 {
		return nil
	}
	return &c.Messages[len(c.Messages)-1]
}

// parseChat reads the body; a refusal names what is wrong.
func parseChat(body []byte) (chatRequest, *runtime.Error) {
	var c chatRequest
	if err := json.Unmarshal(body, &c); err != nil {
		return c, runtime.Errorf(runtime.ErrInvalid, "invalid_request", "The body must be the JSON the AI SDK's chat transport sends ({id, messages, trigger}): %v", err)
	}
	if strings.TrimSpace(c.ID) == "" {
		return c, runtime.Errorf(runtime.ErrInvalid, "invalid_request", "id is required: the chat's ID (it names the harnest session)")
	}
	m := c.last()
	if m == nil {
		return c, runtime.Errorf(runtime.ErrInvalid, "invalid_request", "messages must hold at least the newest message of the chat")
	}
	switch c.Trigger {
	case "", "submit-message", "regenerate-message":
	default:
		return c, runtime.Errorf(runtime.ErrInvalid, "invalid_request", "trigger must be submit-message or regenerate-message, not %q", c.Trigger)
	}
	if m.Role != "user" && m.Role != "assistant" {
		return c, runtime.Errorf(runtime.ErrInvalid, "invalid_request", "The newest message must be the user's (a new turn) or the assistant's with tool answers, not %q", m.Role)
	}
	if len(c.Metadata) > 0 && string(c.Metadata) != "null" && c.Metadata[0] != '{' {
		return c, runtime.Errorf(runtime.ErrInvalid, "invalid_request", "metadata must be a JSON object")
	}
	if len(c.Tools) > 0 && string(c.Tools) != "null" && c.Tools[0] != '[' {
		return c, runtime.Errorf(runtime.ErrInvalid, "invalid_request", "tools must be an array of {name, description?, parameters}")
	}
	return c, nil
}

// userInput is the turn's input: the newest user message's text parts
// (and its files, by URL).
func userInput(m *uiMessage) (string, []runtime.InputPart) {
	var texts []string
	var parts []runtime.InputPart
	files := false
	for _, p := range m.Parts {
		switch p.Type {
		case "text":
			texts = append(texts, p.Text)
			parts = append(parts, runtime.InputPart{Type: "text", Text: p.Text})
		case "file":
			if p.URL != "" {
				files = true
				parts = append(parts, runtime.InputPart{Type: "file", URL: p.URL, MediaType: p.MediaType, Name: p.Filename})
			}
		}
	}
	if !files {
		parts = nil
	}
	return strings.Join(texts, "\n"), parts
}

// answerFor finds, in the newest assistant message, the part that answers
// the wait the chat's response is suspended on: a client tool's output
// (or error), or an approval's decision.
func answerFor(m *uiMessage, w runtime.WaitingOn) (p uiPart, ok bool) {
	for _, part := range m.Parts {
		if !part.isTool() {
			continue
		}
		switch {
		case w.Kind == "client_tool" && part.ToolCallID == w.ID && (part.State == "output-available" || part.State == "output-error"):
			return part, true
		case w.Kind == "approval" && part.State == "approval-responded" && part.Approval != nil && part.Approval.ID == w.ID && part.Approval.Approved != nil:
			return part, true
		}
	}
	return uiPart{}, false
}
