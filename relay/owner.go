package relay

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/harnest/harnest/internal/auth"
	"github.com/harnest/harnest/internal/sse"
	"github.com/harnest/harnest/store"
)

// ownerHandler serves one owner's endpoint; owner is the caller's user ID,
// and the handler sees and changes only that owner's relay.
type ownerHandler func(w http.ResponseWriter, req *http.Request, owner string)

// owner guards an owner-only endpoint: anyone else gets 404, as for
// anything a user does not own.
func (r *Relay) owner(h ownerHandler) http.HandlerFunc {
	return func(w http.ResponseWriter, req *http.Request) {
		owner := auth.From(req.Context()).UserID
		if !r.IsOwner(owner) {
			fail(w, http.StatusNotFound, "not_found", "Not found")
			return
		}
		h(w, req, owner)
	}
}

// participantNotFound answers for a participant ID that is unknown, gone
// or another owner's: the same 404, so IDs of other owners stay unknown.
// participantFound answers a store call that says whether the owner's
// participant was there: 503 on err, 404 when it was not. ok is true
// when neither was written.
func (r *Relay) participantFound(w http.ResponseWriter, found bool, err error) (ok bool) {
	if err != nil {
		r.internal(w, err)
		return false
	}
	if !found {
		participantNotFound(w)
		return false
	}
	return true
}

// queryLimit reads ?limit= of an owner's list: a whole number from 1 to
// 100, def when absent or empty. ok is false when the 400 was written.
func queryLimit(w http.ResponseWriter, req *http.Request, def int) (limit int, ok bool) {
	v := req.URL.Query().Get("limit")
	if v == "" {
		return def, true
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > 100 {
		fail(w, http.StatusBadRequest, "invalid_limit", "limit must be a whole number from 1 to 100.")
		return 0, false
	}
	return n, true
}

// views are the records as the owner's routes show them, in order: a
// list of none is [], not null.
func views[R, V any](recs []R, view func(R) V) []V {
	out := make([]V, len(recs))
	for i, rec := range recs {
		out[i] = view(rec)
	}
	return out
}

func participantNotFound(w http.ResponseWriter) {
	fail(w, http.StatusNotFound, "participant_not_found", "You have no participant with that ID; list yours with GET /owner/outside-agents/participants.")
}

// POST /owner/outside-agents/pairings {name, kind} or {name, recipe}: the
// code pairs a participant of the calling owner; for a recipe, the code's
// kind is the recipe's id.
func (r *Relay) handleCreatePairing(w http.ResponseWriter, req *http.Request, owner string) {
	body, berr := readBody(w, req)
	if berr != nil {
		failBody(w, berr)
		return
	}
	p, berr := decodePairing(body)
	if berr == nil && p.Recipe != "" {
		berr = r.checkPairingRecipe(p)
	}
	if berr != nil {
		failBody(w, berr)
		return
	}
	now := r.now()
	code := newCode()
	err := r.st.CreatePairingCode(req.Context(), store.PairingCode{Hash: codeHash(code), Owner: owner,
		Name: p.Name, Kind: p.Kind, ExpiresAt: now.Add(CodeTTL)}, now)
	if err != nil {
		r.internal(w, err)
		return
	}
	out := map[string]string{"code": code, "name": p.Name, "kind": p.Kind, "expires_at": stamp(now.Add(CodeTTL))}
	if p.Recipe != "" {
		out["recipe"] = p.Recipe
	}
	writeJSON(w, http.StatusCreated, out)
}

type participantJSON struct {
	ID          string `json:"participant_id"`
	Name        string `json:"name"`
	Kind        string `json:"kind"`
	Description string `json:"description,omitempty"`
	State       string `json:"state"`
	PairedAt    string `json:"paired_at"`
	ExpiresAt   string `json:"expires_at"`
	// Look is the look of its card's alive extension (look.go); absent
	// for the standard outside-agent face.
	Look *lookJSON `json:"look,omitempty"`
}

func participantOut(p store.RelayParticipant) participantJSON {
	return participantJSON{ID: p.ID, Name: p.Name, Kind: p.Kind, Description: p.Description,
		State: p.State, PairedAt: stamp(p.PairedAt), ExpiresAt: stamp(p.ExpiresAt), Look: lookOut(p.Look)}
}

// GET /owner/outside-agents/participants: the calling owner's.
func (r *Relay) handleParticipants(w http.ResponseWriter, req *http.Request, owner string) {
	ps, err := r.st.ListParticipants(req.Context(), owner, r.now())
	if err != nil {
		r.internal(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"participants": views(ps, participantOut)})
}

// POST /owner/outside-agents/participants/{id}/pause and /resume
func (r *Relay) handleSetState(state string) ownerHandler {
	return func(w http.ResponseWriter, req *http.Request, owner string) {
		id := req.PathValue("id")
		ok, err := r.st.SetParticipantState(req.Context(), owner, id, state, r.now())
		if !r.participantFound(w, ok, err) {
			return
		}
		if state == store.RelayPaused { // a pause ends the callback token of tools at home at once
			if err := r.EndCallback(req.Context(), owner, id); err != nil {
				r.internal(w, err)
				return
			}
		}
		p, ok := r.ownParticipant(w, req, owner)
		if !ok {
			return
		}
		writeJSON(w, http.StatusOK, participantOut(p))
	}
}

// POST /owner/outside-agents/participants/{id}/disconnect (or DELETE)
func (r *Relay) handleDisconnect(w http.ResponseWriter, req *http.Request, owner string) {
	id := req.PathValue("id")
	ok, err := r.st.DisconnectParticipant(req.Context(), owner, id, r.now())
	if !r.participantFound(w, ok, err) {
		return
	}
	if err := r.EndCallback(req.Context(), owner, id); err != nil { // the participant is gone: so is its callback token
		r.internal(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// GET /owner/outside-agents/feed?limit=5: the newest notices and stage
// items of the calling owner's participants, newest first.
func (r *Relay) handleFeed(w http.ResponseWriter, req *http.Request, owner string) {
	limit, ok := queryLimit(w, req, 5)
	if !ok {
		return
	}
	entries, err := r.st.NewestRelayFeed(req.Context(), owner, limit)
	if err != nil {
		r.internal(w, err)
		return
	}
	looks, err := r.participantLooks(req.Context(), owner)
	if err != nil {
		r.internal(w, err)
		return
	}
	items := views(entries, func(e store.RelayFeedEntry) feedEntryJSON { return feedOut(e, looks) })
	writeJSON(w, http.StatusOK, map[string]any{"items": items})
}

// feedEntryJSON is one notice or stage item as the owner sees it.
type feedEntryJSON struct {
	ID            string          `json:"id"`
	ParticipantID string          `json:"participant_id"`
	Name          string          `json:"name"`
	Kind          string          `json:"kind"`
	Type          string          `json:"type"` // "notice" or "stage"
	Text          string          `json:"text,omitempty"`
	Item          json.RawMessage `json:"item,omitempty"`
	At            string          `json:"at"`
	// Look is the sender's look while it is paired (look.go); absent for
	// the standard face.
	Look *lookJSON `json:"look,omitempty"`
}

// feedOut is an entry as the owner sees it, with its sender's look from
// looks (participant ID → look).
func feedOut(e store.RelayFeedEntry, looks map[string]store.RelayLook) feedEntryJSON {
	return feedEntryJSON{ID: e.ID, ParticipantID: e.Participant, Name: e.Name, Kind: e.Kind, Type: e.Type,
		Text: e.Text, Item: e.Item, At: e.At, Look: lookOut(looks[e.Participant])}
}

// feedCursor is a feed ID "ms-seq" given as a resume point.
type feedCursor struct {
	id      string
	ms, seq uint64
}

// parseStreamID reads a feed ID "ms-seq".
func parseStreamID(s string) (feedCursor, bool) {
	a, b, ok := strings.Cut(s, "-")
	if !ok {
		return feedCursor{}, false
	}
	ms, e1 := strconv.ParseUint(a, 10, 64)
	seq, e2 := strconv.ParseUint(b, 10, 64)
	return feedCursor{id: s, ms: ms, seq: seq}, e1 == nil && e2 == nil
}

// streamIDAfter reports whether feed ID a comes after b.
func streamIDAfter(a, b feedCursor) bool {
	return a.ms > b.ms || a.ms == b.ms && a.seq > b.seq
}

// GET /owner/outside-agents/feed/stream: SSE of the calling owner's new
// notices ("notice") and stage items ("stage"), each with its id;
// Last-Event-ID or ?after= resumes after an entry (the later of the two
// when both are sent, as a reconnecting EventSource does).
func (r *Relay) handleFeedStream(w http.ResponseWriter, req *http.Request, owner string) {
	ctx := req.Context()
	cursor, _, valid := sse.ResumeAfter(req, parseStreamID, streamIDAfter)
	if !valid {
		fail(w, http.StatusBadRequest, "invalid_cursor", "Last-Event-ID (or after) must be an ID from this stream.")
		return
	}
	after := cursor.id
	// Listen first: an entry appended after this is woken for, one
	// appended before is in the feed already.
	wake, stop, err := r.st.ListenRelayFeed(ctx, owner)
	if err != nil {
		r.internal(w, err)
		return
	}
	defer stop()
	if after == "" {
		if after, err = r.st.LastRelayFeedID(ctx, owner); err != nil {
			r.internal(w, err)
			return
		}
	}
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
	for {
		// An idle stream reads nothing: it is woken when an entry arrives.
		entries, err := r.st.RelayFeedAfter(ctx, owner, after, 100)
		if err != nil {
			return
		}
		var looks map[string]store.RelayLook
		if len(entries) > 0 {
			if looks, err = r.participantLooks(ctx, owner); err != nil {
				return
			}
		}
		for _, e := range entries {
			b, _ := json.Marshal(feedOut(e, looks))
			if _, err := fmt.Fprintf(w, "event: %s\nid: %s\ndata: %s\n\n", e.Type, e.ID, b); err != nil {
				return
			}
			after = e.ID
		}
		if len(entries) > 0 {
			_ = rc.Flush()
		}
		if len(entries) == 100 {
			continue // there may be more
		}
		select {
		case <-ctx.Done():
			return
		case <-wake:
		case <-keepAlive.C:
			if _, err := fmt.Fprint(w, ": keep-alive\n\n"); err != nil {
				return
			}
			_ = rc.Flush()
		}
	}
}
