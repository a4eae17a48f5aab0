package neutral

import (
	"net/http"

	"github.com/harnest/harnest/internal/auth"
)

// sessionResponses lists a session's responses, newest first.
func (a *API) sessionResponses(w http.ResponseWriter, r *http.Request) {
	writePage(w, r, func(cursor string, limit int) (any, error) {
		return a.svc.SessionResponses(r.Context(), auth.From(r.Context()), r.PathValue("sessionId"), cursor, limit)
	})
}
