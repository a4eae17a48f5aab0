package openaiapi

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/harnest/harnest/internal/httpapi"
)

// chatRequest is what a chat completion asks for, as the door uses it.
type chatRequest struct {
	Model        string
	Input        string // the newest user message's text
	Stream       bool
	IncludeUsage bool // stream_options.include_usage
}

// wireMessage is one entry of "messages".
type wireMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// wirePart is one content part of a message.
type wirePart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// readRequest reads and checks the body of POST /v1/chat/completions:
// at most maxBody bytes of UTF-8 JSON, an object with "model" and
// "messages". Fields the door does not use are ignored. ok is false when
// an error was already written.
func (d *door) readRequest(w http.ResponseWriter, r *http.Request) (chatRequest, bool) {
	body, f, status := d.readBody(w, r)
	if status != 0 {
		writeFailure(w, status, f)
		return chatRequest{}, false
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(body, &obj); err != nil || obj == nil {
		writeFailure(w, http.StatusBadRequest, failure{Type: typeInvalidRequest, Code: "invalid_json",
			Message: "The request body must be a JSON object (a chat completion request)"})
		return chatRequest{}, false
	}
	req, f, status := d.parseRequest(obj)
	if status != 0 {
		writeFailure(w, status, f)
		return chatRequest{}, false
	}
	return req, true
}

// readBody reads the whole body, bounded by maxBody (httpapi.ReadUTF8). A
// non-zero status says it was refused, and why, in OpenAI's error shape.
func (d *door) readBody(w http.ResponseWriter, r *http.Request) ([]byte, failure, int) {
	body, e := httpapi.ReadUTF8(w, r, d.maxBody)
	if e != nil {
		return nil, failure{Type: typeInvalidRequest, Code: e.Code, Message: e.Detail}, e.Status
	}
	return body, failure{}, 0
}

// parseRequest checks the fields the door uses. A non-zero status says the
// request was refused, and why.
func (d *door) parseRequest(obj map[string]json.RawMessage) (chatRequest, failure, int) {
	var req chatRequest
	if json.Unmarshal(obj["model"], &req.Model) != nil || req.Model == "" {
		return req, invalid("model", "invalid_model", `"model" is required: the agent's name, `+strconv.Quote(d.model)), http.StatusBadRequest
	}
	if req.Model != d.model {
		param := "model"
		return req, d.modelNotFound(req.Model, &param), http.StatusNotFound
	}
	if raw, ok := obj["stream"]; ok && json.Unmarshal(raw, &req.Stream) != nil {
		return req, invalid("stream", "invalid_type", `"stream" must be a boolean`), http.StatusBadRequest
	}
	if raw, ok := obj["stream_options"]; ok && string(raw) != "null" {
		var options struct {
			IncludeUsage bool `json:"include_usage"`
		}
		if json.Unmarshal(raw, &options) != nil {
			return req, invalid("stream_options", "invalid_type", `"stream_options" must be an object such as {"include_usage": true}`), http.StatusBadRequest
		}
		req.IncludeUsage = options.IncludeUsage
	}
	input, f := newestUserText(obj["messages"])
	if f != nil {
		return req, *f, http.StatusBadRequest
	}
	req.Input = input
	return req, failure{}, 0
}

// newestUserText is the text of the last message whose role is "user":
// its content string, or its text parts joined with newlines.
func newestUserText(raw json.RawMessage) (string, *failure) {
	var messages []wireMessage
	if json.Unmarshal(raw, &messages) != nil || len(messages) == 0 {
		f := invalid("messages", "invalid_messages", `"messages" is required: a non-empty array of {"role", "content"} objects`)
		return "", &f
	}
	for i := len(messages) - 1; i >= 0; i-- {
		if messages[i].Role != "user" {
			continue
		}
		param := "messages[" + strconv.Itoa(i) + "].content"
		text, ok := contentText(messages[i].Content)
		if !ok {
			f := invalid(param, "invalid_content", "A user message's content must be a string or an array of text parts ({\"type\":\"text\",\"text\":...}); this server takes text only")
			return "", &f
		}
		if strings.TrimSpace(text) == "" {
			f := invalid(param, "invalid_content", "The newest user message is blank: it is the turn's input and must have text")
			return "", &f
		}
		return text, nil
	}
	f := invalid("messages", "invalid_messages", `"messages" has no message with role "user": the newest user message is the turn's input`)
	return "", &f
}

// contentText reads a message's content: a string, or text parts.
func contentText(raw json.RawMessage) (string, bool) {
	var text string
	if json.Unmarshal(raw, &text) == nil && len(raw) > 0 && raw[0] == '"' {
		return text, true
	}
	var parts []wirePart
	if json.Unmarshal(raw, &parts) != nil || len(parts) == 0 {
		return "", false
	}
	texts := make([]string, 0, len(parts))
	for _, p := range parts {
		if p.Type != "text" {
			return "", false
		}
		texts = append(texts, p.Text)
	}
	return strings.Join(texts, "\n"), true
}
