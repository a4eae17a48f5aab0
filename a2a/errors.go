package a2a

import (
	"errors"
	"net/http"
	"time"

	"github.com/harnest/harnest/runtime"
)

// Error is an A2A error: a JSON-RPC code, the reason its 1.0 ErrorInfo
// carries, and the HTTP status and google.rpc code the HTTP+JSON binding
// answers with. Each binding writes it in its own shape (jsonrpc.go,
// rest.go).
type Error struct {
	Code    int
	Reason  string
	Message string
	HTTP    int
	Status  string
	// RetryAfter, when set, is how long the caller should wait before
	// trying again: HTTP+JSON sends it as Retry-After, and every 1.0
	// binding as a google.rpc.RetryInfo detail.
	RetryAfter time.Duration
}

func (e *Error) Error() string { return e.Message }

func newError(code int, reason string, status int, grpc, msg string) *Error {
	return &Error{Code: code, Reason: reason, Message: msg, HTTP: status, Status: grpc}
}

// The JSON-RPC and A2A errors (both spec versions share the codes).
func errParse(msg string) *Error {
	return newError(-32700, "PARSE_ERROR", http.StatusBadRequest, "INVALID_ARGUMENT", msg)
}
func errInvalidRequest(msg string) *Error {
	return newError(-32600, "INVALID_REQUEST", http.StatusBadRequest, "INVALID_ARGUMENT", msg)
}
func errMethodNotFound(msg string) *Error {
	return newError(-32601, "METHOD_NOT_FOUND", http.StatusNotImplemented, "UNIMPLEMENTED", msg)
}
func errInvalidParams(msg string) *Error {
	return newError(-32602, "INVALID_PARAMS", http.StatusBadRequest, "INVALID_ARGUMENT", msg)
}
func errInternal(msg string) *Error {
	return newError(-32603, "INTERNAL_ERROR", http.StatusInternalServerError, "INTERNAL", msg)
}
func errUnavailable(msg string) *Error {
	return newError(-32603, "INTERNAL_ERROR", http.StatusServiceUnavailable, "UNAVAILABLE", msg)
}
func errTaskNotFound(id string) *Error {
	return newError(-32001, "TASK_NOT_FOUND", http.StatusNotFound, "NOT_FOUND", "Task not found: "+clip(id))
}

// errTaskNotCancelable is HTTP 409 and errContentType HTTP 415, as the
// spec's table for HTTP+JSON says (clients read the ErrorInfo reason, so
// a2a-go v2 and @a2a-js/sdk, whose own servers answer 400, read them the
// same).
func errTaskNotCancelable(msg string) *Error {
	return newError(-32002, "TASK_NOT_CANCELABLE", http.StatusConflict, "FAILED_PRECONDITION", msg)
}
func errPushNotSupported() *Error {
	return newError(-32003, "PUSH_NOTIFICATION_NOT_SUPPORTED", http.StatusBadRequest, "FAILED_PRECONDITION",
		"This agent does not send push notifications")
}
func errUnsupported(msg string) *Error {
	return newError(-32004, "UNSUPPORTED_OPERATION", http.StatusBadRequest, "FAILED_PRECONDITION", msg)
}
func errContentType(msg string) *Error {
	return newError(-32005, "CONTENT_TYPE_NOT_SUPPORTED", http.StatusUnsupportedMediaType, "INVALID_ARGUMENT", msg)
}
func errExtendedCard() *Error {
	return newError(-32007, "EXTENDED_AGENT_CARD_NOT_CONFIGURED", http.StatusBadRequest, "FAILED_PRECONDITION",
		"This agent has no extended agent card")
}
func errExtensionRequired(msg string) *Error {
	return newError(-32008, "EXTENSION_SUPPORT_REQUIRED", http.StatusBadRequest, "FAILED_PRECONDITION", msg)
}

// errUnauthenticated is the auth error of every binding (A2A names none of
// its own: HTTP 401, gRPC UNAUTHENTICATED, and in JSON-RPC the code a2a-go
// and the TCK read as unauthenticated).
func errUnauthenticated(msg string) *Error {
	return newError(-31401, "UNAUTHENTICATED", http.StatusUnauthorized, "UNAUTHENTICATED", msg)
}
func errVersion(msg string) *Error {
	return newError(-32009, "VERSION_NOT_SUPPORTED", http.StatusBadRequest, "FAILED_PRECONDITION", msg)
}

// errRateLimited is a refusal by a quota or rate limit (the user's turns
// of the day, the responses in progress, the server's queue): not a crash,
// so not -32603. A2A names no error for it; JSON-RPC gets -32000, the
// first of the codes JSON-RPC 2.0 leaves to the server (a2a-go reads it as
// its ErrServerError, apart from ErrInternalError), HTTP+JSON 429 and gRPC
// RESOURCE_EXHAUSTED, as §3.3.2 asks of rate limits; every binding says
// when to retry.
func errRateLimited(msg string, retryAfter time.Duration) *Error {
	e := newError(-32000, "RATE_LIMITED", http.StatusTooManyRequests, "RESOURCE_EXHAUSTED", msg)
	e.RetryAfter = retryAfter
	return e
}

// asA2A maps any error to an A2A error: the package's own pass through,
// runtime errors are mapped once here by kind, and anything else becomes a
// generic internal error that reveals nothing.
func asA2A(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	re := runtime.AsError(err)
	switch {
	case errors.Is(re, runtime.ErrNotFound):
		return newError(-32001, "TASK_NOT_FOUND", http.StatusNotFound, "NOT_FOUND", re.Detail)
	case errors.Is(re, runtime.ErrConflict):
		return errUnsupported(re.Detail)
	case errors.Is(re, runtime.ErrUnsupportedMedia):
		return errContentType(re.Detail)
	case errors.Is(re, runtime.ErrTooLarge), errors.Is(re, runtime.ErrInvalid):
		return errInvalidParams(re.Detail)
	case errors.Is(re, runtime.ErrRateLimited):
		return errRateLimited(re.Detail, re.RetryAfter)
	case errors.Is(re, runtime.ErrAgentRefused):
		return newError(-32603, "PERMISSION_DENIED", http.StatusNotFound, "NOT_FOUND", re.Detail)
	case errors.Is(re, runtime.ErrUnavailable):
		return errUnavailable(re.Detail)
	}
	return errInternal(re.Detail)
}
