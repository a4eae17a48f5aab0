package neutral

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/harnest/harnest/runtime"
)

// errorBody is every error response of the neutral API.
type errorBody struct {
	Detail string `json:"detail"`
	Code   string `json:"code"`
}

// statusOf maps a runtime error kind to its HTTP status, once for the API.
func statusOf(err *runtime.Error) int {
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
	case errors.Is(err, runtime.ErrCancelled):
		return 499 // the client closed the request; nobody reads this
	}
	return http.StatusServiceUnavailable
}

// writeError answers with the error's status and body.
func writeError(w http.ResponseWriter, err error) {
	e := runtime.AsError(err)
	writeJSON(w, statusOf(e), errorBody{Detail: e.Detail, Code: e.Code})
}

// fail answers with an explicit status, for errors found by the transport
// itself (content type, body size, envelope).
func fail(w http.ResponseWriter, status int, code, detail string) {
	writeJSON(w, status, errorBody{Detail: detail, Code: code})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"detail":"Internal server error","code":"internal_error"}`)
	}
	writeRaw(w, status, b)
}

func writeRaw(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
