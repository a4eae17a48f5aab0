package neutral

import (
	"net/http"

	"github.com/harnest/harnest/internal/auth"
)

func (a *API) createSession(w http.ResponseWriter, r *http.Request) {
	obj, ok := a.readObject(w, r)
	if !ok {
		return
	}
	invalid := func(detail string) { fail(w, http.StatusBadRequest, "invalid_session_request", detail) }
	if err := onlyKeys(obj, "id", "state"); err != nil {
		invalid("Invalid session request: " + err.Error())
		return
	}
	id, has, err := stringField(obj, "id")
	if err != nil || (has && id == "") {
		invalid("id must be non-empty")
		return
	}
	state, _, err := objectMembers(obj, "state")
	if err != nil {
		invalid("state must be an object")
		return
	}
	sess, err := a.svc.CreateSession(r.Context(), auth.From(r.Context()), id, state)
	writeResult(w, http.StatusCreated, sess, err)
}

func (a *API) listSessions(w http.ResponseWriter, r *http.Request) {
	writePage(w, r, func(cursor string, limit int) (any, error) {
		return a.svc.ListSessions(r.Context(), auth.From(r.Context()), cursor, limit)
	})
}

func (a *API) getSession(w http.ResponseWriter, r *http.Request) {
	sess, err := a.svc.SessionStatus(r.Context(), auth.From(r.Context()), r.PathValue("sessionId"))
	writeResult(w, http.StatusOK, sess, err)
}

func (a *API) patchSession(w http.ResponseWriter, r *http.Request) {
	obj, ok := a.readObject(w, r)
	if !ok {
		return
	}
	delta, has, err := objectMembers(obj, "stateDelta")
	if len(obj) != 1 || !has || err != nil {
		fail(w, http.StatusBadRequest, "invalid_session_patch", `Expected stateDelta object: send exactly {"stateDelta": {...}}`)
		return
	}
	sess, err := a.svc.PatchSession(r.Context(), auth.From(r.Context()), r.PathValue("sessionId"), delta)
	writeResult(w, http.StatusOK, sess, err)
}

func (a *API) deleteSession(w http.ResponseWriter, r *http.Request) {
	if err := a.svc.DeleteSession(r.Context(), auth.From(r.Context()), r.PathValue("sessionId")); err != nil {
		writeError(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (a *API) messages(w http.ResponseWriter, r *http.Request) {
	writePage(w, r, func(cursor string, limit int) (any, error) {
		return a.svc.Messages(r.Context(), auth.From(r.Context()), r.PathValue("sessionId"), cursor, limit)
	})
}
