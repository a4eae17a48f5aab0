package relay

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/harnest/harnest/internal/auth"
)

// owner guards an owner-only endpoint: anyone else gets 404, as for
// anything a user does not own.
func (r *Relay) owner(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, req *http.Request) {
		if !r.IsOwner(auth.From(req.Context()).UserID) {
			fail(w, http.StatusNotFound, "not_found", "Not found")
			return
		}
		h(w, req)
	}
}

// POST /owner/outside-agents/pairings {name, kind}
func (r *Relay) handleCreatePairing(w http.ResponseWriter, req *http.Request) {
	body, berr := readBody(w, req)
	if berr != nil {
		failBody(w, berr)
		return
	}
	p, berr := decodePairing(body)
	if berr != nil {
		failBody(w, berr)
		return
	}
	expires := r.now().Add(CodeTTL)
	code, err := r.st.createCode(req.Context(), p.Name, p.Kind, expires, CodeTTL)
	if err != nil {
		r.internal(w, err)
		return
	}
	writeJSON(w, http.StatusCreated, map[string]string{
		"code": code, "name": p.Name, "kind": p.Kind, "expires_at": stamp(expires),
	})
}

type participantJSON struct {
	ID          string `json:"participant_id"`
	Name        string `json:"name"`
	Kind        string `json:"kind"`
	Description string `json:"description,omitempty"`
	State       string `json:"state"`
	PairedAt    string `json:"paired_at"`
	ExpiresAt   string `json:"expires_at"`
}

func participantOut(p Participant) participantJSON {
	return participantJSON{ID: p.ID, Name: p.Name, Kind: p.Kind, Description: p.Description,
		State: p.State, PairedAt: stamp(p.PairedAt), ExpiresAt: stamp(p.ExpiresAt)}
}

// GET /owner/outside-agents/participants
func (r *Relay) handleParticipants(w http.ResponseWriter, req *http.Request) {
	ps, err := r.st.participants(req.Context(), r.now())
	if err != nil {
		r.internal(w, err)
		return
	}
	out := make([]participantJSON, len(ps))
	for i, p := range ps {
		out[i] = participantOut(p)
	}
	writeJSON(w, http.StatusOK, map[string]any{"participants": out})
}

// POST /owner/outside-agents/participants/{id}/pause and /resume
func (r *Relay) handleSetState(state string) http.HandlerFunc {
	return func(w http.ResponseWriter, req *http.Request) {
		id := req.PathValue("id")
		ok, err := r.st.setState(req.Context(), id, state, r.now())
		if err != nil {
			r.internal(w, err)
			return
		}
		if !ok {
			fail(w, http.StatusNotFound, "participant_not_found", "No participant has that ID.")
			return
		}
		p, found, err := r.st.participant(req.Context(), id, r.now())
		if err != nil || !found {
			fail(w, http.StatusNotFound, "participant_not_found", "No participant has that ID.")
			return
		}
		writeJSON(w, http.StatusOK, participantOut(p))
	}
}

// POST /owner/outside-agents/participants/{id}/disconnect (or DELETE)
func (r *Relay) handleDisconnect(w http.ResponseWriter, req *http.Request) {
	ok, err := r.st.disconnect(req.Context(), req.PathValue("id"), r.now())
	if err != nil {
		r.internal(w, err)
		return
	}
	if !ok {
		fail(w, http.StatusNotFound, "participant_not_found", "No participant has that ID.")
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// GET /owner/outside-agents/feed?limit=5: the newest notices and stage
// items, newest first.
func (r *Relay) handleFeed(w http.ResponseWriter, req *http.Request) {
	limit := 5
	if v := req.URL.Query().Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			fail(w, http.StatusBadRequest, "invalid_limit", "limit must be a whole number from 1 to 100.")
			return
		}
		limit = n
	}
	items, err := r.st.newestFeed(req.Context(), limit)
	if err != nil {
		r.internal(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"items": items})
}

// validStreamID accepts a Redis stream ID "ms-seq".
func validStreamID(s string) bool {
	a, b, ok := strings.Cut(s, "-")
	if !ok {
		return false
	}
	_, e1 := strconv.ParseUint(a, 10, 64)
	_, e2 := strconv.ParseUint(b, 10, 64)
	return e1 == nil && e2 == nil
}

// GET /owner/outside-agents/feed/stream: SSE of new notices ("notice") and
// stage items ("stage"), each with its id; Last-Event-ID (or ?after=)
// resumes after an entry.
func (r *Relay) handleFeedStream(w http.ResponseWriter, req *http.Request) {
	ctx := req.Context()
	after := req.Header.Get("Last-Event-ID")
	if after == "" {
		after = req.URL.Query().Get("after")
	}
	if after != "" && !validStreamID(after) {
		fail(w, http.StatusBadRequest, "invalid_cursor", "Last-Event-ID must be an ID from this stream.")
		return
	}
	if after == "" {
		var err error
		if after, err = r.st.lastFeedID(ctx); err != nil {
			r.internal(w, err)
			return
		}
	}
	wake, done := r.waiters.add("feed")
	defer done()
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	if _, err := fmt.Fprint(w, ": relay feed\n\n"); err != nil {
		return
	}
	_ = rc.Flush()
	keepAlive := time.NewTicker(15 * time.Second)
	defer keepAlive.Stop()
	tick := time.NewTicker(2 * time.Second)
	defer tick.Stop()
	for {
		entries, err := r.st.feedAfter(ctx, after, 100)
		if err != nil {
			return
		}
		for _, e := range entries {
			b, _ := jsonMarshal(e)
			if _, err := fmt.Fprintf(w, "event: %s\nid: %s\ndata: %s\n\n", e.Type, e.ID, b); err != nil {
				return
			}
			after = e.ID
		}
		if len(entries) > 0 {
			_ = rc.Flush()
		}
		select {
		case <-ctx.Done():
			return
		case <-wake:
		case <-tick.C:
		case <-keepAlive.C:
			if _, err := fmt.Fprint(w, ": keep-alive\n\n"); err != nil {
				return
			}
			_ = rc.Flush()
		}
	}
}
