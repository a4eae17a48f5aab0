package neutral

import (
	"net/http"

	"github.com/harnest/harnest/internal/auth"
	"github.com/harnest/harnest/internal/sse"
	"github.com/harnest/harnest/runtime"
)

// sessionEvents follows a session's responses, one after the other, from
// any replica: GET /sessions/{id}/events[?after=<cursor>]. Each frame's id
// is its cursor, "<response>.<sequence>" (the response's number in the
// session, the event's sequence in it); after, or Last-Event-ID when an
// EventSource reconnects, resumes after one. Without either it starts at
// the first event of the response that runs now, or at the next one to
// begin. Leaving never cancels a response.
func (a *API) sessionEvents(w http.ResponseWriter, r *http.Request) {
	after, ok := a.sessionEventsRequest(w, r)
	if !ok {
		return
	}
	sw := sse.Start(w, a.keepAlive)
	defer sw.Close()
	err := a.svc.FollowSession(r.Context(), auth.From(r.Context()), r.PathValue("sessionId"), after, func(f runtime.SessionFrame) (bool, error) {
		return false, sw.EventWithID(f.Type, f.Cursor.String(), f.JSON)
	})
	if err != nil && r.Context().Err() == nil {
		writeStreamError(sw, err)
	}
}

// sessionEventsRequest checks a session stream's request before its
// stream starts, so that a wrong ID is a plain 404 and a bad cursor a 400:
// the cursor to resume after (or, for none, where the stream starts). ok
// is false when an error was already written.
func (a *API) sessionEventsRequest(w http.ResponseWriter, r *http.Request) (*runtime.SessionCursor, bool) {
	after, given, valid := sse.ResumeAfter(r, runtime.ParseSessionCursor, runtime.SessionCursor.After)
	if !valid {
		fail(w, http.StatusBadRequest, "invalid_after",
			`after (or Last-Event-ID) must be a session stream cursor "<response>.<sequence>", such as "3.12", as the stream's event ids are`)
		return nil, false
	}
	if !given { // the start is decided before the stream's headers go out
		start, err := a.svc.SessionStreamStart(r.Context(), auth.From(r.Context()), r.PathValue("sessionId"))
		if err != nil {
			writeError(w, err)
			return nil, false
		}
		return &start, true
	}
	if _, err := a.svc.GetSession(r.Context(), auth.From(r.Context()), r.PathValue("sessionId")); err != nil {
		writeError(w, err)
		return nil, false
	}
	return &after, true
}
