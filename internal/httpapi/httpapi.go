// Package httpapi is the HTTP kit every door (neutral, live, agui, a2a,
// relay, mcpapi, openaiapi, routerapi) answers with: the JSON writers
// (WriteJSON, WriteRaw), the error body {"detail": "<sentence>", "code":
// "<stable_code>"} (Fail, WriteError) with the one mapping of runtime
// error kinds to HTTP statuses, the bounded body readers (ReadAtMost,
// ReadUTF8, ReadBody, ReadObject), and the guard on how request bodies
// arrive (BodyGuard: body timeout, 408, draining after an early answer).
// A door writes its own only where its wire has another shape (OpenAI's
// error body, A2A's JSON-RPC and REST errors), and says so there.
package httpapi

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/harnest/harnest/internal/contract"
	"github.com/harnest/harnest/runtime"
)

// ErrorBody is every error response of harnest's HTTP APIs.
type ErrorBody struct {
	Detail string `json:"detail"`
	Code   string `json:"code"`
	// Violations list where a typed input breaks the agent's input schema
	// (code input_invalid), each with its JSON Pointer.
	Violations []contract.Violation `json:"violations,omitempty"`
}

// statuses are the HTTP statuses of the runtime error kinds, looked up
// in order; any other error is 503.
var statuses = []struct {
	kind   error
	status int
}{
	{runtime.ErrNotFound, http.StatusNotFound},
	{runtime.ErrConflict, http.StatusConflict},
	{runtime.ErrTooLarge, http.StatusRequestEntityTooLarge},
	{runtime.ErrUnsupportedMedia, http.StatusUnsupportedMediaType},
	{runtime.ErrInvalid, http.StatusBadRequest},
	{runtime.ErrTimeout, http.StatusGatewayTimeout},
	{runtime.ErrNoOutput, http.StatusBadGateway},
	{runtime.ErrAgentFailed, http.StatusInternalServerError},
	{runtime.ErrRateLimited, http.StatusTooManyRequests},
	{runtime.ErrAgentRefused, http.StatusNotFound},
	{runtime.ErrCancelled, 499}, // the client closed the request; nobody reads this
}

// StatusOf maps a runtime error kind to its HTTP status.
func StatusOf(err *runtime.Error) int {
	for _, s := range statuses {
		if errors.Is(err, s.kind) {
			return s.status
		}
	}
	return http.StatusServiceUnavailable
}

// WriteError answers with the error's status and body; errors that are not
// runtime errors become a 503 without internal details.
func WriteError(w http.ResponseWriter, err error) {
	e := runtime.AsError(err)
	SetRetryAfter(w, e)
	WriteJSON(w, StatusOf(e), ErrorBody{Detail: e.Detail, Code: e.Code, Violations: e.Violations})
}

// SetRetryAfter sets the Retry-After header (whole seconds, at least 1) of
// an error that says when to try again.
func SetRetryAfter(w http.ResponseWriter, e *runtime.Error) {
	if e == nil || e.RetryAfter <= 0 {
		return
	}
	secs := int64((e.RetryAfter + time.Second - 1) / time.Second)
	w.Header().Set("Retry-After", strconv.FormatInt(secs, 10))
}

// Fail answers with an explicit status, for errors a transport finds itself.
func Fail(w http.ResponseWriter, status int, code, detail string) {
	WriteJSON(w, status, ErrorBody{Detail: detail, Code: code})
}

// NoStore marks the answer Cache-Control: no-store and returns w, for an
// answer that is one user's and current: httpapi.Fail(httpapi.NoStore(w),
// ...).
func NoStore(w http.ResponseWriter) http.ResponseWriter {
	w.Header().Set("Cache-Control", "no-store")
	return w
}

// WriteJSON answers with v as JSON.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"detail":"Internal server error","code":"internal_error"}`)
	}
	WriteRaw(w, status, b)
}

// WriteRaw answers with a JSON body that is already encoded. It declares
// the body's length, so that the answer keeps it even when it is flushed
// before the handler ends (BodyGuard does so before draining a body).
func WriteRaw(w http.ResponseWriter, status int, body []byte) {
	SetHeaders(w.Header(), "Content-Type", "application/json", "Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// SetHeaders is two Header.Set calls in one allocation (Set makes a slice
// for each value): for the headers every answer carries. The names must
// be in canonical form ("Content-Type", not "content-type").
func SetHeaders(h http.Header, name1, value1, name2, value2 string) {
	values := []string{value1, value2}
	h[name1] = values[0:1:1] // capped: appending to one never writes into the other
	h[name2] = values[1:2:2]
}

// ReadObject reads a JSON object body of at most limit bytes, checking in
// order: size (413), UTF-8 (400), JSON (400), object (400). encoding/json
// would silently replace invalid UTF-8 with U+FFFD, so it is refused
// first. ok is false when an error was already written.
func ReadObject(w http.ResponseWriter, r *http.Request, limit int64) (map[string]json.RawMessage, bool) {
	body, ok := ReadBody(w, r, limit)
	if !ok {
		return nil, false
	}
	return DecodeObject(w, body)
}

// ReadBody is the first half of ReadObject: it reads a body of at most
// limit bytes and checks its size (413) and that it is UTF-8 (400), for a
// caller that decodes the JSON itself (and hands what it cannot decode to
// DecodeObject). ok is false when an error was already written.
func ReadBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, bool) {
	body, e := ReadUTF8(w, r, limit)
	if e != nil {
		Fail(w, e.Status, e.Code, e.Detail)
		return nil, false
	}
	return body, true
}

// BodyError is a request body the bounded readers refused: the status to
// answer, a stable code and a sentence. Unwrap gives the cause (a
// *http.MaxBytesError when the body was too large). A door whose errors
// have another shape (OpenAI's, A2A's) words it in its own.
type BodyError struct {
	Status int
	Code   string
	Detail string
	cause  error
}

func (e *BodyError) Error() string { return e.Detail }

// Unwrap is the cause: a *http.MaxBytesError for a body past the limit,
// else the read's error.
func (e *BodyError) Unwrap() error { return e.cause }

// ReadAtMost reads a whole request body of at most limit bytes: past it
// 413 request_too_large (at once when the Content-Length says so), and
// 400 invalid_body when it cannot be read. A body of known length is read
// into one buffer of its size, to its end (which lifts BodyGuard's body
// deadline), without http.MaxBytesReader: net/http ends it there. It is
// every door's bounded body reader.
func ReadAtMost(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, *BodyError) {
	if r.ContentLength > limit {
		return nil, tooLarge(limit, &http.MaxBytesError{Limit: limit})
	}
	src := r.Body
	if r.ContentLength <= 0 || r.ContentLength > maxPrealloc {
		src = http.MaxBytesReader(w, r.Body, limit)
	}
	body, err := readBody(src, r.ContentLength, limit)
	if err != nil {
		return nil, readError(limit, err)
	}
	return body, nil
}

// readError is the refusal of a body whose read failed with err.
func readError(limit int64, err error) *BodyError {
	var mbe *http.MaxBytesError // escapes to errors.As: only on failure
	if errors.As(err, &mbe) {
		return tooLarge(limit, err)
	}
	return &BodyError{Status: http.StatusBadRequest, Code: "invalid_body", Detail: "The request body could not be read", cause: err}
}

// ReadUTF8 is ReadAtMost for a JSON body: it also refuses (400
// invalid_json) a body that is not UTF-8, which encoding/json would
// silently change into U+FFFD.
func ReadUTF8(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, *BodyError) {
	body, e := ReadAtMost(w, r, limit)
	if e == nil && !utf8.Valid(body) {
		return nil, &BodyError{Status: http.StatusBadRequest, Code: "invalid_json", Detail: "The request body is not valid UTF-8; send JSON encoded as UTF-8"}
	}
	return body, e
}

func tooLarge(limit int64, cause error) *BodyError {
	return &BodyError{Status: http.StatusRequestEntityTooLarge, Code: "request_too_large",
		Detail: "Request body exceeds " + runtime.FormatBytes(limit), cause: cause}
}

// DecodeObject is the second half of ReadObject: it checks that a UTF-8
// body is JSON (400) and an object (400), and returns its members. ok is
// false when an error was already written.
func DecodeObject(w http.ResponseWriter, body []byte) (map[string]json.RawMessage, bool) {
	if !json.Valid(body) {
		Fail(w, http.StatusBadRequest, "invalid_json", "Invalid UTF-8 JSON")
		return nil, false
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(body, &obj); err != nil || obj == nil {
		Fail(w, http.StatusBadRequest, "invalid_json", "Expected a JSON object")
		return nil, false
	}
	return obj, true
}

// maxPrealloc bounds the buffer read into at once for a declared length:
// a client must not make the server set aside more by a header alone.
const maxPrealloc = 1 << 20

// readBody reads a whole body; with a declared length (up to maxPrealloc)
// it reads into a buffer of that size (io.ReadAll starts at 512 bytes and
// grows). Past limit it fails with a *http.MaxBytesError.
func readBody(body io.Reader, declared, limit int64) ([]byte, error) {
	if declared <= 0 || declared > maxPrealloc {
		return io.ReadAll(body)
	}
	b := make([]byte, 0, declared+1) // +1: room to see the end without growing
	for {
		n, err := body.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if int64(len(b)) > limit {
			return b, &http.MaxBytesError{Limit: limit}
		}
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // longer than declared: let append grow it
		}
	}
}
