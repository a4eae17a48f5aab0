package relay

import (
	"context"
	"errors"
	"math"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/harnest/harnest/internal/auth"
	"github.com/harnest/harnest/internal/httpapi"
	"github.com/harnest/harnest/relay/text"
	"github.com/harnest/harnest/store"
)

// stamp writes a time as the relay does (text.Stamp): UTC, milliseconds.
func stamp(t time.Time) string { return text.Stamp(t) }

// writeJSON is httpapi.WriteJSON with Cache-Control: no-store: every
// relay answer is one participant's (or the owner's), and current.
func writeJSON(w http.ResponseWriter, status int, v any) {
	httpapi.WriteJSON(httpapi.NoStore(w), status, v)
}

// fail is httpapi.Fail with Cache-Control: no-store (see writeJSON).
func fail(w http.ResponseWriter, status int, code, detail string) {
	httpapi.Fail(httpapi.NoStore(w), status, code, detail)
}

func failBody(w http.ResponseWriter, e *bodyError) { fail(w, e.status, e.code, e.detail) }

// storeRefusal is how a route answers one error of the store (err, as
// errors.Is finds it): a status, a code and a sentence.
type storeRefusal struct {
	err          error
	status       int
	code, detail string
}

// refuse answers a store error, when there is one: the first refusal made
// for it, else 503 (internal). It reports whether it answered.
func (r *Relay) refuse(w http.ResponseWriter, err error, refusals ...storeRefusal) bool {
	if err == nil {
		return false
	}
	for _, f := range refusals {
		if errors.Is(err, f.err) {
			fail(w, f.status, f.code, f.detail)
			return true
		}
	}
	r.internal(w, err)
	return true
}

func (r *Relay) internal(w http.ResponseWriter, err error) {
	if errors.Is(err, context.Canceled) {
		return
	}
	r.log.Error("relay", "err", err)
	fail(w, http.StatusServiceUnavailable, "unavailable", "The relay is unavailable; try again shortly.")
}

// limited answers 429 with Retry-After.
func limited(w http.ResponseWriter, wait time.Duration, code, detail string) {
	secs := int(math.Ceil(wait.Seconds()))
	if secs < 1 {
		secs = 1
	}
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	fail(w, http.StatusTooManyRequests, code, detail)
}

// allow takes one request from a minute bucket of owner's (or, with owner
// "", the server's); false when it answered 429.
func (r *Relay) allow(w http.ResponseWriter, req *http.Request, owner, bucket, subject string, perMinute int) bool {
	b := store.RelayBucket{Owner: owner, Name: bucket, Subject: subject, Limit: perMinute, Window: time.Minute}
	return r.takeBucket(w, req.Context(), b, r.now(), "rate_limited", "Too many requests; wait for Retry-After seconds before trying again.")
}

// takeBucket takes one from bucket b at now; false when the answer was
// written (admitted).
func (r *Relay) takeBucket(w http.ResponseWriter, ctx context.Context, b store.RelayBucket, now time.Time, code, detail string) bool {
	ok, wait, err := r.st.TakeRelayBucket(ctx, b, now)
	return r.admitted(w, ok, wait, err, code, detail)
}

// admitted answers the outcome of a rate check: 503 when it failed (err),
// 429 with Retry-After (code, detail) when it refused (not ok). It is true
// when the request goes on.
func (r *Relay) admitted(w http.ResponseWriter, ok bool, wait time.Duration, err error, code, detail string) bool {
	if err != nil {
		r.internal(w, err)
		return false
	}
	if !ok {
		limited(w, wait, code, detail)
		return false
	}
	return true
}

// sessionWithin is the participant of the request's session (session)
// when the request is within its rate of bucket (allow); ok is false when
// the answer was written.
func (r *Relay) sessionWithin(w http.ResponseWriter, req *http.Request, bucket string, perMinute int) (store.RelayParticipant, bool) {
	p, ok := r.session(w, req)
	return p, ok && r.allow(w, req, p.Owner, bucket, p.ID, perMinute)
}

// session resolves the participant of the request's session token, or
// answers 401.
func (r *Relay) session(w http.ResponseWriter, req *http.Request) (store.RelayParticipant, bool) {
	token, ok := auth.BearerToken(req)
	if ok {
		p, found, err := r.st.ParticipantByToken(req.Context(), hashSecret(token), r.now())
		if err != nil {
			r.internal(w, err)
			return store.RelayParticipant{}, false
		}
		if found {
			return p, true
		}
	}
	w.Header().Set("WWW-Authenticate", `Bearer realm="harnest-relay"`)
	fail(w, http.StatusUnauthorized, "invalid_session",
		"The session token is invalid or expired; ask the owner for a new pairing code and pair again.")
	return store.RelayParticipant{}, false
}

func clientIP(req *http.Request) string {
	host, _, err := net.SplitHostPort(req.RemoteAddr)
	if err != nil {
		return req.RemoteAddr
	}
	return host
}

// POST pairings/exchange
func (r *Relay) handleExchange(w http.ResponseWriter, req *http.Request) {
	// No owner is known before the code is: this bucket is the server's.
	if !r.allow(w, req, "", "exchange", clientIP(req), ExchangePerMinute) {
		return
	}
	ex, ok := readDecoded(w, req, decodeExchange)
	if !ok {
		return
	}
	token := newToken()
	look := r.cardLook(req.Context(), ex.Alive) // an invalid look is ignored: the pairing goes on
	p, err := r.st.ExchangePairingCode(req.Context(), store.Pairing{CodeHash: codeHash(ex.Code), Name: ex.Name,
		Kind: ex.Kind, Description: ex.Description, ParticipantID: newUUID(), TokenHash: hashSecret(token),
		Look: look, Now: r.now(), TTL: SessionTTL})
	if r.refuse(w, err,
		storeRefusal{store.ErrPairingInvalid, http.StatusUnauthorized, "invalid_code", "The pairing code is unknown, already used or expired; ask the owner for a new one."},
		storeRefusal{store.ErrPairingMismatch, http.StatusUnprocessableEntity, "card_mismatch", "The card's name and kind must exactly match what the owner chose for this code."}) {
		return
	}
	r.log.Info("relay participant paired", "participant", p.ID, "kind", p.Kind, "owner", p.Owner)
	answer := map[string]string{
		"token": token, "participant_id": p.ID, "expires_at": stamp(p.ExpiresAt),
	}
	// Tools at home (tools_note.go): the callback token, shown once.
	if cb, err := r.issueCallback(req.Context(), p); err != nil {
		r.internal(w, err)
		return
	} else if cb != "" {
		answer["callback_token"] = cb
	}
	writeJSON(w, http.StatusCreated, answer)
}

// GET session/status
func (r *Relay) handleStatus(w http.ResponseWriter, req *http.Request) {
	p, ok := r.sessionWithin(w, req, "status", StatusPerMinute)
	if !ok {
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{
		"participant_id": p.ID, "state": p.State, "expires_at": stamp(p.ExpiresAt),
	})
}

type inboxItem struct {
	RelayID    string `json:"relay_id"`
	Text       string `json:"text"`
	AskedAt    string `json:"asked_at"`
	DeadlineAt string `json:"deadline_at"`
	// Callback carries the run note of tools at home; absent when off.
	Callback *itemCallback `json:"callback,omitempty"`
}

// parseWait reads ?wait= in seconds, clamped to 0–limit.
func parseWait(v string, limit time.Duration) time.Duration {
	if v == "" {
		return 0
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(f) || f <= 0 {
		return 0
	}
	if f >= limit.Seconds() {
		return limit
	}
	return time.Duration(f * float64(time.Second))
}

// GET inbox?wait=: the pending items, or, when there are none, a long
// poll of up to wait. While it waits the poll reads nothing from the
// store: an item, a pause or a disconnect wakes it, on any replica.
func (r *Relay) handleInbox(w http.ResponseWriter, req *http.Request) {
	p, ok := r.sessionWithin(w, req, "poll", PollPerMinute)
	if !ok {
		return
	}
	wait := parseWait(req.URL.Query().Get("wait"), r.maxWait)
	ctx := req.Context()
	var wake <-chan struct{}
	if wait > 0 {
		// Listen before the first read, so an item that arrives between
		// the two wakes the poll.
		ch, stop, err := r.st.ListenRelayInbox(ctx, p.Owner, p.ID)
		if err != nil {
			r.internal(w, err)
			return
		}
		defer stop()
		wake = ch
		openPolls.Add(1)
		defer openPolls.Add(-1)
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for first := true; ; first = false {
		if !first { // the session just read the participant
			cur, live, err := r.st.GetParticipant(ctx, p.Owner, p.ID, r.now())
			if err != nil {
				r.internal(w, err)
				return
			}
			if !live {
				fail(w, http.StatusUnauthorized, "invalid_session",
					"The session ended; ask the owner for a new pairing code and pair again.")
				return
			}
			p = cur
		}
		items, err := r.inboxItems(ctx, p)
		if err != nil {
			r.internal(w, err)
			return
		}
		if len(items) > 0 || wait == 0 {
			writeJSON(w, http.StatusOK, map[string]any{"items": items})
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
			writeJSON(w, http.StatusOK, map[string]any{"items": []inboxItem{}})
			return
		case <-wake:
		}
	}
}

// inboxItems lists what a participant should answer now: nothing while
// paused.
func (r *Relay) inboxItems(ctx context.Context, p store.RelayParticipant) ([]inboxItem, error) {
	if p.State == store.RelayPaused {
		return []inboxItem{}, nil
	}
	pending, err := r.st.PendingRelayItems(ctx, p.Owner, p.ID, r.now())
	if err != nil {
		return nil, err
	}
	out := make([]inboxItem, len(pending))
	for i, it := range pending {
		out[i] = inboxItem{RelayID: it.ID, Text: it.Text, AskedAt: stamp(it.AskedAt), DeadlineAt: stamp(it.DeadlineAt)}
		if out[i].Callback, err = r.itemCallbackFor(ctx, p, it); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// POST replies
func (r *Relay) handleReplies(w http.ResponseWriter, req *http.Request) {
	p, ok := r.sessionWithin(w, req, "poll", PollPerMinute)
	if !ok {
		return
	}
	rep, ok := readDecoded(w, req, decodeReply)
	if !ok {
		return
	}
	err := r.st.ReplyRelayItem(req.Context(), p.Owner, p.ID, rep.RelayID, rep.Text, r.now())
	switch {
	case err == nil:
		writeJSON(w, http.StatusOK, map[string]bool{"accepted": true})
	case errors.Is(err, store.ErrRelayItemExpired):
		// Not fail: like every answer to a reply, it says accepted (false).
		writeJSON(w, http.StatusGone, map[string]any{"accepted": false, "code": "item_expired",
			"detail": "The item's deadline has passed; the reply was not accepted. Do not retry expired work."})
	default:
		r.refuse(w, err,
			storeRefusal{store.ErrParticipantPaused, http.StatusConflict, "participant_paused", "The owner paused this participant; replies are not accepted until it is resumed."},
			storeRefusal{store.ErrParticipantGone, http.StatusUnauthorized, "invalid_session", "The session ended; ask the owner for a new pairing code and pair again."},
			storeRefusal{store.ErrRelayItemUnknown, http.StatusNotFound, "item_not_found", "No inbox item of this participant has that relay_id."},
			storeRefusal{store.ErrRelayItemAnswered, http.StatusConflict, "already_answered", "This item was already answered."})
	}
}

// POST notices: a notice ({"text"}) or a stage item ({"item"}) for the
// participant's owner.
func (r *Relay) handleNotices(w http.ResponseWriter, req *http.Request) {
	p, ok := r.session(w, req)
	if !ok {
		return
	}
	n, ok := readDecoded(w, req, decodeNotice)
	if !ok {
		return
	}
	ctx, now := req.Context(), r.now()
	entry := store.RelayFeedEntry{Participant: p.ID, Name: p.Name, Kind: p.Kind, At: stamp(now)}
	if n.Item == nil {
		b := store.RelayBucket{Owner: p.Owner, Name: "notice", Subject: p.ID, Limit: NoticesPerHour, Window: time.Hour}
		if !r.takeBucket(w, ctx, b, now, "notice_limit", "A participant can send three notices an hour; this one was not stored.") {
			return
		}
		entry.Type, entry.Text = "notice", n.Text
	} else {
		b := store.RelayBucket{Owner: p.Owner, Name: "stage", Subject: p.ID, Limit: StagePerMinute, Window: time.Minute}
		if !r.takeBucket(w, ctx, b, now, "stage_limit", "A participant can send 12 stage items a minute; this one was dropped.") {
			return
		}
		if n.ItemType == "say" {
			ok, wait, err := r.st.SpaceRelaySay(ctx, p.Owner, p.ID, SayEvery, now)
			if !r.admitted(w, ok, wait, err, "stage_limit", "A participant can say one line every five seconds; this one was dropped.") {
				return
			}
		}
		entry.Type, entry.Item = "stage", n.Item
	}
	// The entry reaches only the owner who paired this participant.
	if _, err := r.st.AppendRelayFeed(ctx, p.Owner, entry); err != nil {
		r.internal(w, err)
		return
	}
	writeJSON(w, http.StatusAccepted, map[string]bool{"accepted": true})
}
