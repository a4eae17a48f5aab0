// Package httpapi holds what the HTTP transports (neutral, agui, relay)
// share: the error body {"detail": "<sentence>", "code": "<stable_code>"},
// the one mapping of runtime error kinds to HTTP statuses, reading a
// bounded UTF-8 JSON object body, and the guard on how request bodies
// arrive (BodyGuard: body timeout, 408, draining after an early answer).
package httpapi

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/harnest/harnest/runtime"
)

// ErrorBody is every error response of harnest's HTTP APIs.
type ErrorBody struct {
	Detail string `json:"detail"`
	Code   string `json:"code"`
}

// StatusOf maps a runtime error kind to its HTTP status.
func StatusOf(err *runtime.Error) int {
	switch {
	case errors.Is(err, runtime.ErrNotFound):
		return http.StatusNotFound
	case errors.Is(err, runtime.ErrConflict):
		return http.StatusConflict
	case errors.Is(err, runtime.ErrTooLarge):
		return http.StatusRequestEntityTooLarge
	case errors.Is(err, runtime.ErrUnsupportedMedia):
		return http.StatusUnsupportedMediaType
	case errors.Is(err, runtime.ErrInvalid):
		return http.StatusBadRequest
	case errors.Is(err, runtime.ErrTimeout):
		return http.StatusGatewayTimeout
	case errors.Is(err, runtime.ErrNoOutput):
		return http.StatusBadGateway
	case errors.Is(err, runtime.ErrAgentFailed):
		return http.StatusInternalServerError
	case errors.Is(err, runtime.ErrRateLimited):
		return http.StatusTooManyRequests
	case errors.Is(err, runtime.ErrAgentRefused):
		return http.StatusNotFound
	case errors.Is(err, runtime.ErrCancelled):
		return 499 // the client closed the request; nobody reads this
	}
	return http.StatusServiceUnavailable
}

// WriteError answers with the error's status and body; errors that are not
// runtime errors become a 503 without internal details.
func WriteError(w http.ResponseWriter, err error) {
	e := runtime.AsError(err)
	SetRetryAfter(w, e)
	Fail(w, StatusOf(e), e.Code, e.Detail)
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
	tooLarge := func() {
		Fail(w, http.StatusRequestEntityTooLarge, "request_too_large", "Request body exceeds "+runtime.FormatBytes(limit))
	}
	if r.ContentLength > limit {
		tooLarge()
		return nil, false
	}
	body, err := readBody(http.MaxBytesReader(w, r.Body, limit), r.ContentLength)
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		tooLarge()
		return nil, false
	}
	if err != nil {
		Fail(w, http.StatusBadRequest, "invalid_body", "The request body could not be read")
		return nil, false
	}
	if !utf8.Valid(body) {
		Fail(w, http.StatusBadRequest, "invalid_json", "The request body is not valid UTF-8; send JSON encoded as UTF-8")
		return nil, false
	}
	return body, true
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

// readBody reads a whole body; with a declared length it reads into a
// buffer of that size (io.ReadAll starts at 512 bytes and grows).
func readBody(body io.Reader, declared int64) ([]byte, error) {
	if declared <= 0 || declared > 1<<20 {
		return io.ReadAll(body)
	}
	b := make([]byte, 0, declared+1) // +1: room to see the end without growing
	for {
		n, err := body.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
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
