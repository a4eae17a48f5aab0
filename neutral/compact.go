package neutral

import (
	"encoding/json"
	"net/http"

	"github.com/harnest/harnest/internal/auth"
)

// maxKeepRecent bounds keepRecent of POST /sessions/{id}/compact.
const maxKeepRecent = 1000

// compactSession compacts a session now: POST /sessions/{sessionId}/compact
// with no body or {"keepRecent": n} (the newest messages kept as they are;
// default the agent's). 200 with the session's newest compaction item
// (compacted false: nothing was left to summarise); 404 for a session the
// caller does not have; 409 session_busy while a response holds it, or
// compaction_unsupported for an agent that does not compact.
func (a *API) compactSession(w http.ResponseWriter, r *http.Request) {
	keepRecent := -1
	if r.ContentLength != 0 {
		obj, ok := a.readObject(w, r)
		if !ok {
			return
		}
		invalid := func(detail string) { fail(w, http.StatusBadRequest, "invalid_compact_request", detail) }
		if err := onlyKeys(obj, "keepRecent"); err != nil {
			invalid("Invalid compact request: " + err.Error())
			return
		}
		if raw, has := obj["keepRecent"]; has {
			if json.Unmarshal(raw, &keepRecent) != nil || keepRecent < 0 || keepRecent > maxKeepRecent {
				invalid("keepRecent must be an integer from 0 to 1000")
				return
			}
		}
	}
	out, err := a.svc.CompactSession(r.Context(), auth.From(r.Context()), r.PathValue("sessionId"), keepRecent)
	writeResult(w, http.StatusOK, out, err)
}
