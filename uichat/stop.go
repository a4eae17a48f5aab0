package uichat

import (
	"encoding/json"
	"net/http"

	"github.com/harnest/harnest/internal/httpapi"
	"github.com/harnest/harnest/runtime"
)

// stopAnswer is the body of POST /api/chat/{id}/stop.
type stopAnswer struct {
	ID string `json:"id"`
	// Stopped is true when this call cancelled the chat's response.
	Stopped bool `json:"stopped"`
	// ResponseID is the response that was active; null when none was.
	ResponseID *string `json:"responseId"`
	// Status is that response's status now (cancelled, or how it ended
	// before the stop arrived); null when none was active.
	Status *string `json:"status"`
}

// stop answers POST /api/chat/{id}/stop: the chat's active response is
// cancelled on whichever replica runs it (the AI SDK's stop() only aborts
// the request, which leaves a background turn running). A chat with
// nothing running answers stopped: false.
func (d *door) stop(w http.ResponseWriter, r *http.Request, p runtime.Principal, id string) {
	st, err := d.svc.SessionStatus(r.Context(), p, id)
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	out := stopAnswer{ID: id, ResponseID: st.ActiveResponseID}
	if st.ActiveResponseID != nil {
		receipt, err := d.svc.CancelResponse(r.Context(), p, id, *st.ActiveResponseID)
		if err != nil {
			httpapi.WriteError(w, err)
			return
		}
		var env runtime.EnvelopeBody
		_ = json.Unmarshal(receipt, &env)
		out.Status = &env.Status
		out.Stopped = env.Status == runtime.StatusCancelled
	}
	httpapi.WriteJSON(httpapi.NoStore(w), http.StatusOK, out)
}
