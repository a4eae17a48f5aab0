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
	if err1 != nil || err2 != nil || n < 1 || s < -1 {
		return SessionCursor{}, false
	}
	return SessionCursor{Response: n, Sequence: s}, true
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
	notify, unlisten, err := s.listen(ctx, p.UserID, sessionID, "") // "": the session's new responses
	if err != nil {
		return s.storeFailure(err)
	}
	defer unlisten()
	at := SessionCursor{Sequence: -1}
	if after != nil {
		at = *after
	} else if at.Response, err = s.sessionStart(ctx, p.UserID, sessionID); err != nil {
		return err
	}
	sf := &sessionFollower{s: s, ctx: ctx, p: p, sessionID: sessionID, at: at, fn: fn, notify: notify}
	return sf.run()
}

// sessionFollower is one FollowSession call: where it is and what wakes it
// while it waits for the session's next response.
type sessionFollower struct {
	s         *Service
	ctx       context.Context
	p         Principal
	sessionID string
	at        SessionCursor // the next response to follow, and the last event passed of it
	fn        func(SessionFrame) (bool, error)
	stopped   bool
	notify    <-chan struct{}
}

// run follows one response after the other.
func (f *sessionFollower) run() error {
	var poll *time.Ticker
	for {
		id, found, err := f.s.sessionResponseAt(f.ctx, f.p.UserID, f.sessionID, f.at.Response)
		if err != nil {
			return err
		}
		if !found {
			if poll == nil {
				poll = time.NewTicker(followPoll)
				defer poll.Stop()
			}
			if err := f.wait(poll.C); err != nil {
				return err
			}
			continue
		}
		if err := f.follow(id); err != nil || f.stopped {
			return err
		}
		f.at = SessionCursor{Response: f.at.Response + 1, Sequence: -1}
	}
}

// wait waits for the session's next response to begin; the session being
// deleted meanwhile ends the stream.
func (f *sessionFollower) wait(poll <-chan time.Time) error {
	select {
	case <-f.notify:
		return nil
	case <-poll:
	case <-f.ctx.Done():
		return f.ctx.Err()
	}
	exists, err := f.s.store.SessionExists(f.ctx, f.p.UserID, f.sessionID)
	switch {
	case err != nil && f.ctx.Err() != nil:
		return f.ctx.Err()
	case err != nil:
		return f.s.storeFailure(err)
	case !exists:
		return errSessionNotFound
	}
	return nil
}

// follow passes the events of one response after f.at, to its end.
func (f *sessionFollower) follow(responseID string) error {
	if f.at.Sequence >= 0 {
		// Resuming after the response's final event: nothing more of it.
		last, err := f.s.store.EventsAfter(f.ctx, f.p.UserID, f.sessionID, responseID, f.at.Sequence-1, 1)
		if err == nil && len(last) == 1 && last[0].Sequence == f.at.Sequence && isFinalFrame(last[0].Type, last[0].JSON) {
			return nil
		}
	}
	n := f.at.Response
	return f.s.Follow(f.ctx, f.p, f.sessionID, responseID, f.at.Sequence, func(fr Frame) (bool, error) {
		f.at.Sequence = fr.Sequence
		stop, err := f.fn(SessionFrame{Frame: fr, ResponseID: responseID, Cursor: SessionCursor{Response: n, Sequence: fr.Sequence}})
		f.stopped = stop
		return stop, err
	})
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
