package fakemodel

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Request is one request the fake received, as decoded from the wire.
type Request struct {
	Header   http.Header
	Body     []byte // the raw JSON body
	Model    string
	Messages []Message
	Tools    []json.RawMessage // each tool definition as sent
	Stream   bool
}

// Message is one message of a request.
type Message struct {
	Role string
	// Content is the content as sent: a JSON string, an array of parts, or
	// null (absent content is null too).
	Content    json.RawMessage
	ToolCalls  []ToolCall
	ToolCallID string
}

// ToolCall is a tool call, in a request's assistant message or in a
// scripted reply. In a reply an empty ID is not sent (a provider that
// sends none).
type ToolCall struct {
	ID, Name, Arguments string
}

// Text returns the message content as text: the string itself, or the
// text parts joined with newlines; "" for null or other shapes.
func (m Message) Text() string {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(m.Content, &parts) != nil {
		return ""
	}
	var texts []string
	for _, p := range parts {
		if p.Type == "text" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// ToolNames returns the names of the tools the request offered, in order.
func (r Request) ToolNames() []string {
	var names []string
	for _, raw := range r.Tools {
		var tool struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		}
		_ = json.Unmarshal(raw, &tool)
		names = append(names, tool.Function.Name)
	}
	return names
}

// wireRequest is the part of a Chat Completions request the fake reads.
type wireRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role      string          `json:"role"`
		Content   json.RawMessage `json:"content"`
		ToolCalls []struct {
			ID       string `json:"id"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
		ToolCallID string `json:"tool_call_id"`
	} `json:"messages"`
	Tools  []json.RawMessage `json:"tools"`
	Stream bool              `json:"stream"`
}

// readRequest reads and decodes r's body. On a decoding error the request
// still carries its headers and raw body.
func readRequest(r *http.Request, limit int64) (Request, error) {
	req := Request{Header: r.Header.Clone()}
	body, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	req.Body = body
	if err != nil {
		return req, fmt.Errorf("reading it: %w", err)
	}
	if int64(len(body)) > limit {
		return req, fmt.Errorf("it is larger than %d bytes", limit)
	}
	var wire wireRequest
	if err := json.Unmarshal(body, &wire); err != nil {
		return req, err
	}
	req.Model, req.Tools, req.Stream = wire.Model, wire.Tools, wire.Stream
	for _, m := range wire.Messages {
		msg := Message{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID}
		if len(msg.Content) == 0 {
			msg.Content = json.RawMessage("null")
		}
		for _, c := range m.ToolCalls {
			msg.ToolCalls = append(msg.ToolCalls, ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: c.Function.Arguments})
		}
		req.Messages = append(req.Messages, msg)
	}
	return req, nil
}
