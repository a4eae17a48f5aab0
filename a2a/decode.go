package a2a

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// Decoders of outside input: the params of every JSON-RPC method and the
// bodies and queries of the HTTP+JSON routes, for each spec version. They
// are lenient about unknown fields (the spec asks servers to ignore them)
// and strict about the fields they use; every failure is an invalid-params
// error that names the field, except JSON text that is not UTF-8, which is
// a parse error (checkUTF8).

const maxIDLength = 256

func invalidf(format string, args ...any) *Error {
	return errInvalidParams(fmt.Sprintf(format, args...))
}

// isNull reports an absent or null JSON value.
func isNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || string(t) == "null"
}

// objectOrNil checks that raw is a JSON object (or absent).
func objectOrNil(raw json.RawMessage, field string) (json.RawMessage, error) {
	if isNull(raw) {
		return nil, nil
	}
	if t := bytes.TrimSpace(raw); t[0] != '{' {
		return nil, invalidf("%s must be an object", field)
	}
	return raw, nil
}

// checkUTF8 refuses JSON text that is not valid UTF-8 with a parse error:
// encoding/json would silently replace the bad bytes with U+FFFD.
func checkUTF8(raw json.RawMessage) error {
	if !utf8.Valid(raw) {
		return errParse("The request is not valid UTF-8; send JSON encoded as UTF-8")
	}
	return nil
}

func decodeStrict(raw json.RawMessage, v any, what string) error {
	if err := checkUTF8(raw); err != nil {
		return err
	}
	if isNull(raw) {
		return invalidf("params are required: %s", what)
	}
	if err := json.Unmarshal(camelKeys(raw), v); err != nil {
		return invalidf("params must be %s: %s", what, jsonProblem(err))
	}
	return nil
}

// jsonProblem describes a decoding error without echoing the input.
func jsonProblem(err error) string {
	var te *json.UnmarshalTypeError
	if ok := asType(err, &te); ok && te.Field != "" {
		return fmt.Sprintf("field %s has the wrong type (%s)", te.Field, te.Value)
	}
	var se *json.SyntaxError
	if asType(err, &se) {
		return "the JSON is malformed"
	}
	return "the JSON does not match"
}

func asType[T error](err error, target *T) bool {
	for err != nil {
		if t, ok := err.(T); ok {
			*target = t
			return true
		}
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return false
		}
		err = u.Unwrap()
	}
	return false
}

// checkMessage validates a client message in the model: a user message
// with an ID and at least one part, each part holding exactly one kind of
// content.
func checkMessage(m *Message) error {
	switch {
	case strings.TrimSpace(m.MessageID) == "":
		return invalidf("message.messageId is required")
	case len(m.MessageID) > maxIDLength:
		return invalidf("message.messageId is longer than %d characters", maxIDLength)
	case m.Role != roleUser:
		return invalidf("message.role must be the user role")
	case len(m.Parts) == 0:
		return invalidf("message.parts needs at least one part")
	case len(m.TaskID) > maxIDLength || len(m.ContextID) > maxIDLength:
		return invalidf("message.taskId and message.contextId must be at most %d characters", maxIDLength)
	}
	if m.ContextID != "" && strings.TrimSpace(m.ContextID) == "" {
		return invalidf("message.contextId must not be blank")
	}
	var err error
	if m.Metadata, err = objectOrNil(m.Metadata, "message.metadata"); err != nil {
		return err
	}
	for i := range m.Parts {
		p := &m.Parts[i]
		if isNull(p.Data) {
			p.Data = nil
		}
		n := 0
		for _, set := range []bool{p.Text != nil, p.Raw != nil, p.URL != "", p.Data != nil} {
			if set {
				n++
			}
		}
		if n != 1 {
			return invalidf("message.parts[%d] must hold exactly one of text, raw, url or data", i)
		}
		if p.Metadata, err = objectOrNil(p.Metadata, "message.parts[].metadata"); err != nil {
			return invalidf("message.parts[%d].metadata must be an object", i)
		}
	}
	return nil
}

// ---- 1.0 (JSON-RPC params and HTTP+JSON bodies share the shape) ----

type sendParams10 struct {
	Message       *Message `json:"message"`
	Configuration *struct {
		ReturnImmediately bool `json:"returnImmediately"`
		HistoryLength     *int `json:"historyLength"`
	} `json:"configuration"`
	Metadata json.RawMessage `json:"metadata"`
}

// decodeSend10 reads a 1.0 SendMessageRequest: the common one the fast
// way (readSend10), any other with encoding/json (decodeSend10Generic).
func decodeSend10(raw json.RawMessage) (sendRequest, error) { return decodeSend10From(raw, false) }

// decodeSend10Params is decodeSend10 for the params of a JSON-RPC request
// that parseRPC accepted, which are valid JSON in UTF-8 already.
func decodeSend10Params(raw json.RawMessage) (sendRequest, error) { return decodeSend10From(raw, true) }

// decodeSend10From reads and checks a send; checked says raw is known to
// be valid JSON in UTF-8.
func decodeSend10From(raw json.RawMessage, checked bool) (sendRequest, error) {
	req, ok := readSend10(raw, checked)
	if !ok {
		var err error
		if req, err = decodeSend10Generic(raw); err != nil {
			return sendRequest{}, err
		}
	}
	var err error
	if req.Metadata, err = objectOrNil(req.Metadata, "metadata"); err != nil {
		return sendRequest{}, err
	}
	return req, checkMessage(&req.Message)
}

// decodeSend10Generic reads any 1.0 SendMessageRequest, before the
// checks, and writes the errors of one that does not decode.
func decodeSend10Generic(raw json.RawMessage) (sendRequest, error) {
	var p sendParams10
	if err := decodeStrict(raw, &p, "a SendMessageRequest {message, configuration?, metadata?}"); err != nil {
		return sendRequest{}, err
	}
	if p.Message == nil {
		return sendRequest{}, invalidf("message is required")
	}
	req := sendRequest{Message: *p.Message, Metadata: p.Metadata}
	if p.Configuration != nil {
		req.ReturnImmediately = p.Configuration.ReturnImmediately
		req.HistoryLength = p.Configuration.HistoryLength
	}
	return req, nil
}

type taskIDParams struct {
	ID            string          `json:"id"`
	HistoryLength *int            `json:"historyLength"`
	Metadata      json.RawMessage `json:"metadata"`
}

// decodeTaskID reads {id, historyLength?} (GetTask, CancelTask,
// SubscribeToTask and their 0.3 forms).
func decodeTaskID(raw json.RawMessage) (taskIDParams, error) {
	var p taskIDParams
	if err := decodeStrict(raw, &p, "an object {id, historyLength?}"); err != nil {
		return p, err
	}
	if strings.TrimSpace(p.ID) == "" {
		return p, invalidf("id is required")
	}
	if len(p.ID) > maxIDLength {
		return p, invalidf("id is longer than %d characters", maxIDLength)
	}
	return p, nil
}

type listParams10 struct {
	ContextID            string `json:"contextId"`
	Status               string `json:"status"`
	PageSize             *int   `json:"pageSize"`
	PageToken            string `json:"pageToken"`
	HistoryLength        *int   `json:"historyLength"`
	StatusTimestampAfter string `json:"statusTimestampAfter"`
	IncludeArtifacts     bool   `json:"includeArtifacts"`
}

// decodeList10 reads ListTasks params.
func decodeList10(raw json.RawMessage) (listRequest, error) {
	var p listParams10
	if err := checkUTF8(raw); err != nil {
		return listRequest{}, err
	}
	if !isNull(raw) {
		if err := json.Unmarshal(camelKeys(raw), &p); err != nil {
			return listRequest{}, invalidf("params must be a ListTasksRequest: %s", jsonProblem(err))
		}
	}
	return listFrom(p.ContextID, p.Status, p.PageSize, p.PageToken, p.HistoryLength, p.StatusTimestampAfter, p.IncludeArtifacts)
}

// listFrom checks a ListTasks query, however it arrived.
func listFrom(contextID, status string, pageSize *int, token string, history *int, after string, artifacts bool) (listRequest, error) {
	req := listRequest{ContextID: contextID, PageToken: token, HistoryLength: history, IncludeArtifacts: artifacts, PageSize: 50}
	if status != "" && status != "TASK_STATE_UNSPECIFIED" {
		s, ok := normalizeState(status)
		if !ok {
			return req, invalidf("status %q is not a task state", clip(status))
		}
		req.Status = s
	}
	if pageSize != nil && *pageSize != 0 {
		if *pageSize < 1 {
			return req, invalidf("pageSize must be between 1 and 100")
		}
		req.PageSize = min(*pageSize, 100)
	}
	if after != "" {
		t, err := time.Parse(time.RFC3339Nano, after)
		if err != nil {
			return req, invalidf("statusTimestampAfter must be an RFC 3339 timestamp")
		}
		req.After = t
	}
	if history != nil && *history < 0 {
		return req, invalidf("historyLength must not be negative")
	}
	return req, nil
}

func clip(s string) string {
	if len(s) > 64 {
		return s[:64] + "..."
	}
	return s
}

// ---- 0.3 JSON-RPC ----

type partIn03 struct {
	Kind     string          `json:"kind"`
	Text     *string         `json:"text"`
	File     *file03         `json:"file"`
	Data     json.RawMessage `json:"data"`
	Metadata json.RawMessage `json:"metadata"`
}

type messageIn03 struct {
	MessageID        string          `json:"messageId"`
	ContextID        string          `json:"contextId"`
	TaskID           string          `json:"taskId"`
	Role             string          `json:"role"`
	Parts            []partIn03      `json:"parts"`
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

// ---- 0.3 HTTP+JSON (ProtoJSON of the 0.3 proto) ----

type partInP struct {
	Text *string `json:"text"`
	File *struct {
		FileWithURI   string `json:"fileWithUri"`
		FileWithBytes string `json:"fileWithBytes"`
		MimeType      string `json:"mimeType"`
		Name          string `json:"name"`
	} `json:"file"`
	Data *struct {
		Data json.RawMessage `json:"data"`
	} `json:"data"`
	Metadata json.RawMessage `json:"metadata"`
}

type messageInP struct {
	MessageID  string          `json:"messageId"`
	ContextID  string          `json:"contextId"`
	TaskID     string          `json:"taskId"`
	Role       string          `json:"role"`
	Content    []partInP       `json:"content"`
	Metadata   json.RawMessage `json:"metadata"`
	Extensions []string        `json:"extensions"`
}

// decodeSend03REST reads a 0.3 proto SendMessageRequest: {message (or
// request), configuration?, metadata?}.
func decodeSend03REST(raw json.RawMessage) (sendRequest, error) {
	var p struct {
		Message       *messageInP     `json:"message"`
		Request       *messageInP     `json:"request"`
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
