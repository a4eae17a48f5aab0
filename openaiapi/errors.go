package openaiapi

import (
	"encoding/json"
	"net/http"

	"github.com/harnest/harnest/internal/httpapi"
	"github.com/harnest/harnest/runtime"
)

// The error types of OpenAI's error shape that this door uses.
const (
	typeInvalidRequest = "invalid_request_error"
	typeAuthentication = "authentication_error"
	typeRateLimit      = "rate_limit_error"
	typeServer         = "server_error"
)

// failure is the inner object of OpenAI's error shape:
// {"error":{"message","type","code","param"}}. Param names the request
// field at fault, or is null.
type failure struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Code    string  `json:"code"`
	Param   *string `json:"param"`
}

// errorBody is the whole error answer.
type errorBody struct {
	Error failure `json:"error"`
}

// invalid is a 400 about one request field.
func invalid(param, code, message string) failure {
	return failure{Type: typeInvalidRequest, Code: code, Message: message, Param: &param}
}

// writeFailure answers with status and f in OpenAI's shape: this door
// keeps its own error writer, since OpenAI's clients read
// {"error":{...}}, not httpapi's {"detail","code"}.
func writeFailure(w http.ResponseWriter, status int, f failure) {
	b, err := json.Marshal(errorBody{Error: f})
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"error":{"message":"Internal server error","type":"server_error","code":"internal_error","param":null}}`)
	}
	httpapi.WriteRaw(w, status, b)
}

// writeError answers with a runtime error: the status the runtime's kinds
// map to, Retry-After when it says when to try again, and the runtime's
// sentence as the message.
func writeError(w http.ResponseWriter, err error) {
	e := runtime.AsError(err)
	httpapi.SetRetryAfter(w, e)
	status := httpapi.StatusOf(e)
	writeFailure(w, status, failureOf(e, status))
}

// failureOf is a runtime error in OpenAI's shape. The code is the
// runtime's stable code, except where OpenAI has a code of its own that
// clients look for (rate_limit_exceeded).
func failureOf(e *runtime.Error, status int) failure {
	f := failure{Message: e.Detail, Code: e.Code}
	switch {
	case status == http.StatusTooManyRequests:
		f.Type, f.Code = typeRateLimit, "rate_limit_exceeded"
	case status == http.StatusUnauthorized:
		f.Type = typeAuthentication
	case status >= 500:
		f.Type = typeServer
	default:
		f.Type = typeInvalidRequest
	}
	return f
}

// unauthorized answers 401 with OpenAI's invalid_api_key code.
func unauthorized(w http.ResponseWriter, message string) {
	w.Header().Set("WWW-Authenticate", `Bearer realm="harnest"`)
	writeFailure(w, http.StatusUnauthorized, failure{Type: typeAuthentication, Code: "invalid_api_key", Message: message})
}
