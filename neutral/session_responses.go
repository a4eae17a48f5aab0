package neutral

import (
	"net/http"

	"github.com/harnest/harnest/internal/auth"
)

// sessionResponses lists a session's responses, newest first.
func (a *API) sessionResponses(w http.ResponseWriter, r *http.Request) {
	cursor, limit, ok := pageParams(w, r)
	if !ok {
		return
	}
	page, err := a.svc.SessionResponses(r.Context(), auth.From(r.Context()), r.PathValue("sessionId"), cursor, limit)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, page)
}
