package a2a

import (
	"bytes"
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

// decodeStrict reads params that are required into v; what names their
// shape in the errors.
func decodeStrict(raw json.RawMessage, v any, what string) error {
	return decodeParams(raw, v, what, true)
}

// decodeParams reads params into v, with snake_case keys read as
// camelCase (camelKeys). Null or absent params leave v as it is, or are
// an error when required; what names their shape in the errors.
func decodeParams(raw json.RawMessage, v any, what string, required bool) error {
	if err := checkUTF8(raw); err != nil {
		return err
	}
	if isNull(raw) {
		if required {
			return invalidf("params are required: %s", what)
		}
		return nil
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
	if err := decodeParams(raw, &p, "a ListTasksRequest", false); err != nil {
		return listRequest{}, err
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
