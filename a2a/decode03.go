package a2a

import (
	"encoding/base64"
	"encoding/json"
	"strings"
)

// Decoders of the 0.3 methods and routes, JSON-RPC and HTTP+JSON
// (ProtoJSON of the 0.3 proto), with the same rules as decode.go's.

// messageIn03 is a 0.3 JSON-RPC message as read: message03 without its
// kind, which is not read. Parts are read in their written shape (part03:
// omitempty plays no part in reading).
type messageIn03 struct {
	MessageID        string          `json:"messageId"`
	ContextID        string          `json:"contextId"`
	TaskID           string          `json:"taskId"`
	Role             string          `json:"role"`
	Parts            []part03        `json:"parts"`
	Metadata         json.RawMessage `json:"metadata"`
	Extensions       []string        `json:"extensions"`
	ReferenceTaskIDs []string        `json:"referenceTaskIds"`
}

type config03 struct {
	Blocking      *bool `json:"blocking"`
	HistoryLength *int  `json:"historyLength"`
}

// roleOf reads a role in any spelling ("user", "ROLE_USER").
func roleOf(r string) string {
	switch strings.ToLower(strings.TrimPrefix(strings.ToUpper(r), "ROLE_")) {
	case "user":
		return roleUser
	case "agent":
		return roleAgent
	}
	return ""
}

func filePart(f *file03) (Part, error) {
	p := Part{Filename: f.Name, MediaType: f.MimeType}
	switch {
	case f.Bytes != "" && f.URI == "":
		b, err := base64.StdEncoding.DecodeString(f.Bytes)
		if err != nil {
			return p, invalidf("file.bytes must be base64")
		}
		p.Raw = b
	case f.URI != "" && f.Bytes == "":
		p.URL = f.URI
	default:
		return p, invalidf("a file part needs exactly one of bytes or uri")
	}
	return p, nil
}

func decodeMessage03(m messageIn03) (Message, error) {
	out := Message{MessageID: m.MessageID, ContextID: m.ContextID, TaskID: m.TaskID, Role: roleOf(m.Role),
		Metadata: m.Metadata, Extensions: m.Extensions, ReferenceTaskIDs: m.ReferenceTaskIDs}
	for i, p := range m.Parts {
		q := Part{Metadata: p.Metadata}
		// Be lenient about a missing kind: pick the part by its content.
		switch kind := p.Kind; {
		case kind == "text" || (kind == "" && p.Text != nil):
			if p.Text == nil {
				return out, invalidf("message.parts[%d].text is required", i)
			}
			q.Text = p.Text
		case kind == "file" || (kind == "" && p.File != nil):
			if p.File == nil {
				return out, invalidf("message.parts[%d].file is required", i)
			}
			fp, err := filePart(p.File)
			if err != nil {
				return out, err
			}
			fp.Metadata = p.Metadata
			q = fp
		case kind == "data" || (kind == "" && !isNull(p.Data)):
			if isNull(p.Data) {
				return out, invalidf("message.parts[%d].data is required", i)
			}
			q.Data = p.Data
		default:
			return out, invalidf("message.parts[%d].kind must be text, file or data", i)
		}
		out.Parts = append(out.Parts, q)
	}
	return out, nil
}

// decodeSend03 reads 0.3 MessageSendParams.
func decodeSend03(raw json.RawMessage) (sendRequest, error) {
	var p struct {
		Message       *messageIn03    `json:"message"`
		Configuration *config03       `json:"configuration"`
		Metadata      json.RawMessage `json:"metadata"`
	}
	if err := decodeStrict(raw, &p, "MessageSendParams {message, configuration?, metadata?}"); err != nil {
		return sendRequest{}, err
	}
	if p.Message == nil {
		return sendRequest{}, invalidf("message is required")
	}
	msg, err := decodeMessage03(*p.Message)
	if err != nil {
		return sendRequest{}, err
	}
	req := sendRequest{Message: msg}
	if c := p.Configuration; c != nil {
		req.ReturnImmediately = c.Blocking != nil && !*c.Blocking
		req.HistoryLength = c.HistoryLength
	}
	if req.Metadata, err = objectOrNil(p.Metadata, "metadata"); err != nil {
		return sendRequest{}, err
	}
	return req, checkMessage(&req.Message)
}

// decodeSend03REST reads a 0.3 proto SendMessageRequest: {message (or
// request), configuration?, metadata?}.
func decodeSend03REST(raw json.RawMessage) (sendRequest, error) {
	var p struct {
		Message       *messageP       `json:"message"` // read as written
		Request       *messageP       `json:"request"`
		Configuration *config03       `json:"configuration"`
		Metadata      json.RawMessage `json:"metadata"`
	}
	if err := decodeStrict(raw, &p, "a SendMessageRequest {message, configuration?, metadata?}"); err != nil {
		return sendRequest{}, err
	}
	m := p.Message
	if m == nil {
		m = p.Request
	}
	if m == nil {
		return sendRequest{}, invalidf("message is required")
	}
	msg := Message{MessageID: m.MessageID, ContextID: m.ContextID, TaskID: m.TaskID, Role: roleOf(m.Role),
		Metadata: m.Metadata, Extensions: m.Extensions}
	for i, c := range m.Content {
		q := Part{Metadata: c.Metadata}
		switch {
		case c.Text != nil && c.File == nil && c.Data == nil:
			q.Text = c.Text
		case c.File != nil && c.Text == nil && c.Data == nil:
			fp, err := filePart(&file03{Name: c.File.Name, MimeType: c.File.MimeType, Bytes: c.File.FileWithBytes, URI: c.File.FileWithURI})
			if err != nil {
				return sendRequest{}, err
			}
			fp.Metadata = c.Metadata
			q = fp
		case c.Data != nil && c.Text == nil && c.File == nil:
			if isNull(c.Data.Data) {
				return sendRequest{}, invalidf("message.content[%d].data.data is required", i)
			}
			q.Data = c.Data.Data
		default:
			return sendRequest{}, invalidf("message.content[%d] must hold exactly one of text, file or data", i)
		}
		msg.Parts = append(msg.Parts, q)
	}
	req := sendRequest{Message: msg}
	if c := p.Configuration; c != nil {
		// ProtoJSON leaves out a false bool: within a configuration, no
		// blocking means blocking is false (the JS 0.3 client sends
		// {"configuration":{}} for blocking: false).
		req.ReturnImmediately = c.Blocking == nil || !*c.Blocking
		req.HistoryLength = c.HistoryLength
	}
	var err error
	if req.Metadata, err = objectOrNil(p.Metadata, "metadata"); err != nil {
		return sendRequest{}, err
	}
	return req, checkMessage(&req.Message)
}

// decodeList03 reads tasks/list, which the 0.3 spec does not define but
// the a2a-go 0.3 client sends, with snake_case fields; camelCase is read
// too.
func decodeList03(raw json.RawMessage) (listRequest, error) {
	var p struct {
		listParams10
		ContextIDSnake        string `json:"context_id"`
		PageSizeSnake         *int   `json:"page_size"`
		PageTokenSnake        string `json:"page_token"`
		HistoryLengthSnake    *int   `json:"history_length"`
		LastUpdatedAfterSnake string `json:"last_updated_after"`
		IncludeArtifactsSnake bool   `json:"include_artifacts"`
	}
	if err := checkUTF8(raw); err != nil {
		return listRequest{}, err
	}
	if !isNull(raw) {
		if err := json.Unmarshal(raw, &p); err != nil {
			return listRequest{}, invalidf("params must be a list request: %s", jsonProblem(err))
		}
	}
	pick := func(a, b string) string {
		if a != "" {
			return a
		}
		return b
	}
	size, history := p.PageSize, p.HistoryLength
	if size == nil {
		size = p.PageSizeSnake
	}
	if history == nil {
		history = p.HistoryLengthSnake
	}
	if history != nil && *history == 0 && p.HistoryLength == nil {
		history = nil // the a2a-go 0.3 client cannot leave it unset
	}
	return listFrom(pick(p.ContextID, p.ContextIDSnake), p.Status, size, pick(p.PageToken, p.PageTokenSnake), history,
		pick(p.StatusTimestampAfter, p.LastUpdatedAfterSnake), p.IncludeArtifacts || p.IncludeArtifactsSnake)
}
