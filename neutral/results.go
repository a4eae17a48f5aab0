package neutral

import (
	"context"
	"net/http"

	"github.com/harnest/harnest/internal/auth"
	"github.com/harnest/harnest/internal/httpapi"
	"github.com/harnest/harnest/runtime"
)

// How the neutral handlers answer a call of the service: its result, or the
// error that stopped it (mapped once, by writeError).

// writeResult writes v as JSON with status, or err when the call failed.
func writeResult(w http.ResponseWriter, status int, v any, err error) {
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, status, v)
}

// writeReceipt writes a response's receipt (its stored JSON) with 200, or
// err when the call failed.
func writeReceipt(w http.ResponseWriter, body []byte, err error) {
	if err != nil {
		writeError(w, err)
		return
	}
	writeRaw(w, http.StatusOK, body)
}

// writePage answers a paged list: ?cursor= and ?limit= (pageParams), then
// the page list reads.
func writePage(w http.ResponseWriter, r *http.Request, list func(cursor string, limit int) (any, error)) {
	cursor, limit, ok := httpapi.PageParams(w, r, runtime.MaxPageSize)
	if !ok {
		return
	}
	page, err := list(cursor, limit)
	writeResult(w, http.StatusOK, page, err)
}

// writeResponseCall answers a call on one response of the caller, named by
// the path's responseId and ?sessionId=, whose result is its receipt.
func writeResponseCall(w http.ResponseWriter, r *http.Request,
	call func(ctx context.Context, p runtime.Principal, sessionID, responseID string) ([]byte, error)) {
	sessionID, ok := requireSessionID(w, r)
	if !ok {
		return
	}
	body, err := call(r.Context(), auth.From(r.Context()), sessionID, r.PathValue("responseId"))
	writeReceipt(w, body, err)
}
