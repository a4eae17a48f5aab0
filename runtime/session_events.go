package runtime

import (
	"context"
	"strconv"
	"strings"
	"time"
)

// A session's own event stream (GET /sessions/{id}/events): every response
// of the session in the order they began, each from its first event to its
// last, live, from any replica. A client that does not know which response
// runs (a reloaded page, a second tab) finds it this way, then follows the
// ones after it. Each event's place is a SessionCursor, which encodes the
// response (its number in the session) and the event's sequence in it, so
// that a stream resumed after a cursor goes on where it stopped, across
// responses, without gaps or repeats.

// SessionCursor is a place in a session's stream: event Sequence of the
// session's Response-th response (responses count from 1 in the order
// they began). Written "<response>.<sequence>", e.g. "3.12".
type SessionCursor struct {
	Response int64
	Sequence int
}

// String writes the cursor as an event ID.
func (c SessionCursor) String() string {
	return strconv.FormatInt(c.Response, 10) + "." + strconv.Itoa(c.Sequence)
}

// ParseSessionCursor reads a cursor written by String: a response number
// from 1 and an event sequence from -1 ("3.-1": before the third
// response's first event).
func ParseSessionCursor(raw string) (SessionCursor, bool) {
	resp, seq, ok := strings.Cut(raw, ".")
	if !ok {
		return SessionCursor{}, false
	}
	n, err1 := strconv.ParseInt(resp, 10, 64)
	s, err2 := strconv.Atoi(seq)
	c := SessionCursor{Response: n, Sequence: s}
	if err1 != nil || err2 != nil || n < 1 || s < -1 || c.String() != raw { // only the form String writes
		return SessionCursor{}, false
	}
	return c, true
}

// After reports whether c is later in the stream than o.
func (c SessionCursor) After(o SessionCursor) bool {
	return c.Response > o.Response || c.Response == o.Response && c.Sequence > o.Sequence
}

// SessionFrame is one event of a session's stream.
type SessionFrame struct {
	Frame
	ResponseID string
	Cursor     SessionCursor
}

// sessionStartScan bounds how many of the newest responses FollowSession
// reads to find where a stream without a cursor starts.
const sessionStartScan = 50

// FollowSession follows the user's session: it calls fn for every event of
// its responses after the cursor, in order, then for those logged later,
// until fn returns stop or ctx ends. Without a cursor (nil) it starts at
// the first event of the response that runs now (with queued responses,
// the oldest one not final), or, when none runs, at the next response to
// begin. Leaving never cancels a response.
func (s *Service) FollowSession(ctx context.Context, p Principal, sessionID string, after *SessionCursor, fn func(SessionFrame) (stop bool, err error)) error {
	if _, err := s.GetSession(ctx, p, sessionID); err != nil {
		return err
	}
	sf, err := s.startSessionFollow(ctx, p, sessionID, after, fn)
	if err != nil {
		return err
	}
	defer sf.stop()
	// Only the waiting is here (as in Follow, whose reading this shares):
	// an idle follower, of a response or of the session's next one, waits
	// in this frame, so that the stack each keeps stays small.
	for {
		if done, err := sf.step(); done {
			return err
		}
		events, poll := sf.wakers()
		select {
		case <-sf.notify:
		case <-events:
		case <-poll:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// sessionFollower is one FollowSession call: where it is, the response it
// follows (cur, nil while it waits for the session's next response), and
// what wakes it.
type sessionFollower struct {
	s         *Service
	ctx       context.Context
	p         Principal
	sessionID string
	at        SessionCursor // the response to follow, and the last event passed of it
	fn        func(SessionFrame) (bool, error)
	stopped   bool

	cur      *follower       // the response followed now
	notify   <-chan struct{} // the session's new responses
	unlisten func()
	poll     *time.Ticker // the safety net while waiting for the next response
}

// startSessionFollow subscribes to the session's new responses and finds
// where the stream starts.
func (s *Service) startSessionFollow(ctx context.Context, p Principal, sessionID string, after *SessionCursor, fn func(SessionFrame) (bool, error)) (*sessionFollower, error) {
	notify, unlisten, err := s.listen(ctx, p.UserID, sessionID, "") // "": the session's new responses
	if err != nil {
		return nil, s.storeFailure(err)
	}
	sf := &sessionFollower{s: s, ctx: ctx, p: p, sessionID: sessionID, fn: fn, notify: notify, unlisten: unlisten,
		at: SessionCursor{Sequence: -1}, poll: time.NewTicker(followPoll)}
	if after != nil {
		sf.at = *after
	} else if sf.at.Response, err = s.sessionStart(ctx, p.UserID, sessionID); err != nil {
		sf.stop()
		return nil, err
	}
	return sf, nil
}

// stop ends the subscriptions.
func (sf *sessionFollower) stop() {
	if sf.cur != nil {
		sf.cur.stop()
	}
	sf.poll.Stop()
	sf.unlisten()
}

// wakers are what wakes the follower now: the followed response's signal
// and safety net, or the session's safety net between responses.
func (sf *sessionFollower) wakers() (<-chan struct{}, <-chan time.Time) {
	if sf.cur != nil {
		return sf.cur.notify, sf.cur.poll.C
	}
	return nil, sf.poll.C
}

// step passes everything logged so far, response after response. done is
// true when the stream ends (fn stopped or failed, the session is gone,
// the store failed); otherwise it waits for more.
func (sf *sessionFollower) step() (done bool, err error) {
	for {
		if sf.cur == nil {
			found, err := sf.attach()
			if err != nil || !found {
				return err != nil, err
			}
			if sf.cur == nil {
				continue // resumed after that response's end: the next one
			}
		}
		done, err := sf.cur.catchUp()
		if !done {
			return false, nil
		}
		sf.cur.stop()
		sf.cur = nil
		if err != nil || sf.stopped {
			return true, err
		}
		sf.at = SessionCursor{Response: sf.at.Response + 1, Sequence: -1}
	}
}

// attach starts following the session's response sf.at.Response. found is
// false when it has not begun yet (or the session is gone: err then); cur
// stays nil when the cursor is at that response's final event, and sf.at
// then names the next one.
func (sf *sessionFollower) attach() (found bool, err error) {
	s := sf.s
	id, found, err := s.sessionResponseAt(sf.ctx, sf.p.UserID, sf.sessionID, sf.at.Response)
	if err != nil {
		return false, err
	}
	if !found {
		return false, sf.sessionStillThere()
	}
	if sf.at.Sequence >= 0 {
		// Resuming after the response's final event: nothing more of it.
		last, err := s.store.EventsAfter(sf.ctx, sf.p.UserID, sf.sessionID, id, sf.at.Sequence-1, 1)
		if err == nil && len(last) == 1 && last[0].Sequence == sf.at.Sequence && isFinalFrame(last[0].Type, last[0].JSON) {
			sf.at = SessionCursor{Response: sf.at.Response + 1, Sequence: -1}
			return true, nil
		}
	}
	n := sf.at.Response
	f, err := s.startFollow(sf.ctx, sf.p, sf.sessionID, id, sf.at.Sequence, func(fr Frame) (bool, error) {
		sf.at.Sequence = fr.Sequence
		stop, err := sf.fn(SessionFrame{Frame: fr, ResponseID: id, Cursor: SessionCursor{Response: n, Sequence: fr.Sequence}})
		sf.stopped = stop
		return stop, err
	})
	if err != nil {
		return false, err
	}
	sf.cur = f
	return true, nil
}

// sessionStillThere checks, while no response is followed, that the
// session was not deleted meanwhile (which ends the stream).
func (sf *sessionFollower) sessionStillThere() error {
	exists, err := sf.s.store.SessionExists(sf.ctx, sf.p.UserID, sf.sessionID)
	switch {
	case err != nil && sf.ctx.Err() != nil:
		return sf.ctx.Err()
	case err != nil:
		return sf.s.storeFailure(err)
	case !exists:
		return errSessionNotFound
	}
	return nil
}

// SessionStreamStart is where a session stream without a cursor starts,
// decided now: before the first event of the response that runs now, or
// of the next one to begin. A transport that answers before it follows
// (an SSE stream's headers) decides the start first, so that a response
// that begins after the answer is never missed.
func (s *Service) SessionStreamStart(ctx context.Context, p Principal, sessionID string) (SessionCursor, error) {
	if _, err := s.GetSession(ctx, p, sessionID); err != nil {
		return SessionCursor{}, err
	}
	n, err := s.sessionStart(ctx, p.UserID, sessionID)
	return SessionCursor{Response: n, Sequence: -1}, err
}

// sessionStart is the number of the response a stream without a cursor
// starts with: the oldest of the newest responses that are not final, or
// the next one to begin when the newest is final.
func (s *Service) sessionStart(ctx context.Context, user, sessionID string) (int64, error) {
	rows, err := s.store.SessionResponses(ctx, user, sessionID, 0, sessionStartScan)
	if err != nil {
		return 0, s.storeFailure(err)
	}
	if len(rows) == 0 {
		return 1, nil
	}
	start := rows[0].Seq + 1
	for _, row := range rows {
		receipt, found, err := s.store.Receipt(ctx, user, sessionID, row.ID)
		if err != nil {
			return 0, s.storeFailure(err)
		}
		if !found || isTerminal(receipt) {
			break
		}
		start = row.Seq
	}
	return start, nil
}

// sessionResponseAt finds the session's n-th response.
func (s *Service) sessionResponseAt(ctx context.Context, user, sessionID string, n int64) (string, bool, error) {
	rows, err := s.store.SessionResponses(ctx, user, sessionID, n+1, 1)
	if err != nil {
		if ctx.Err() != nil {
			return "", false, ctx.Err()
		}
		return "", false, s.storeFailure(err)
	}
	if len(rows) == 0 || rows[0].Seq != n {
		return "", false, nil
	}
	return rows[0].ID, true, nil
}
