package trigger

import (
	"net/http"

	"github.com/harnest/harnest/internal/httpapi"
)

// handle serves one delivery: verify, map, remember, act (see the
// package's doc). Whatever is refused changes nothing.
func (ts *Triggers) handle(w http.ResponseWriter, r *http.Request) {
	w = httpapi.NoStore(w)
	name := r.PathValue("name")
	t, ok := ts.byName[name]
	if !ok {
		httpapi.Fail(w, http.StatusNotFound, "trigger_not_found", "No trigger has that name; triggers are named in config.yaml under server.triggers")
		return
	}
	body, e := httpapi.ReadAtMost(w, r, int64(ts.o.MaxBodyBytes))
	if e != nil {
		httpapi.Fail(w, e.Status, e.Code, e.Detail)
		return
	}
	id, why := t.verify(r.Header, body, ts.o.Now())
	if why != "" {
		ts.o.Log.Warn("triggers: refused a delivery", "trigger", name, "reason", string(why), "remote", r.RemoteAddr, "bytes", len(body))
		httpapi.Fail(w, http.StatusUnauthorized, "invalid_signature", "The delivery was refused: "+string(why))
		return
	}
	p, err := t.plan(body)
	if err != nil {
		ts.o.Log.Warn("triggers: a signed delivery does not map", "trigger", name, "deliveryId", id, "reason", err.Error())
		httpapi.Fail(w, http.StatusBadRequest, "invalid_payload", err.Error())
		return
	}
	fresh, err := ts.o.Store.RememberDelivery(r.Context(), name, id, t.Remember)
	if err != nil {
		ts.o.Log.Warn("triggers: cannot remember a delivery", "trigger", name, "deliveryId", id, "err", err)
		httpapi.Fail(w, http.StatusServiceUnavailable, "store_unavailable", "The state store is unavailable; retry the delivery shortly")
		return
	}
	if !fresh {
		ts.o.Log.Warn("triggers: refused a replayed delivery", "trigger", name, "deliveryId", id, "remote", r.RemoteAddr)
		httpapi.Fail(w, http.StatusConflict, "delivery_replayed", "This delivery ID was already accepted; a delivery is acted on once")
		return
	}
	v, err := ts.act(r.Context(), t, id, p)
	if err != nil {
		// Not acted on: forget it, so that the sender's retry is not a replay.
		if ferr := ts.o.Store.ForgetDelivery(r.Context(), name, id); ferr != nil {
			ts.o.Log.Warn("triggers: cannot forget a delivery that was not acted on", "trigger", name, "deliveryId", id, "err", ferr)
		}
		httpapi.WriteError(w, err) // runtime errors map once, in the HTTP kit
		return
	}
	httpapi.WriteJSON(w, http.StatusAccepted, v)
}
