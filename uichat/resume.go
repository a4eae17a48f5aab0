package uichat

import (
	"errors"
	"net/http"

	"github.com/harnest/harnest/internal/httpapi"
	"github.com/harnest/harnest/runtime"
)

// resume answers GET /api/chat/{id}/stream, which useChat sends with
// resume: true (on mount, after a reload or a dropped connection): the
// chat's active response replayed from its start (the AI SDK rebuilds the
// message from the replay), then live until it ends or waits for the
// client, from any replica. 204 when the chat has no active response (or
// does not exist yet: a new chat resumes on mount too).
func (d *door) resume(w http.ResponseWriter, r *http.Request, p runtime.Principal, id string) {
	st, err := d.svc.SessionStatus(r.Context(), p, id)
	if errors.Is(err, runtime.ErrNotFound) {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	if st.ActiveResponseID == nil {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	responseID := *st.ActiveResponseID
	sw := d.openStream(w, id)
	defer sw.Close()
	out := &batch{sw: sw}
	enc := newEncoder(responseID, out.add)
	enc.replay = &replayWaits{state: func(waitID string) string {
		return d.waitState(r.Context(), p, id, waitID)
	}}
	d.follow(r, p, out, enc, id, responseID, -1)
}
