package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"
)

// Busy sessions. A session runs one response at a time; a message sent
// while a response runs or waits (for an approval, a client tool) is
// answered by the strategy the caller named (ResponseRequest.OnBusy), or
// the agent's default (spec.onBusy):
//
//   - reject: refused with 409 session_busy (the default: see
//     DefaultOnBusy);
//   - enqueue: accepted at once with a queued receipt; it starts when the
//     responses before it end, in the order they were accepted, on
//     whichever replica takes it (queue.go);
//   - interrupt: queued at the head, then the running response is
//     cancelled; its partial answer stays in the transcript, marked
//     interrupted;
//   - rollback: queued at the head, then the running response is
//     cancelled and nothing of it stays in the transcript.
//
// The queue lives in the store (store.Queues), so every replica sees the
// same one: no sticky sessions.

// Busy-session strategies (ResponseRequest.OnBusy, spec.onBusy).
const (
	BusyReject    = "reject"
	BusyEnqueue   = "enqueue"
	BusyInterrupt = "interrupt"
	BusyRollback  = "rollback"
)

// DefaultOnBusy is the strategy of an agent whose config names none:
// reject, as before strategies existed, so that no client that relies on
// 409 finds its second message run later instead (and JSON callers of the
// A2A, MCP and OpenAI doors, which cannot say "queued", are not left
// blocked behind another turn). Chat UIs opt in per message (onBusy) or
// per agent (spec.onBusy: enqueue).
const DefaultOnBusy = BusyReject

// DefaultMaxQueuedPerSession bounds a session's queue when Options give no
// bound: past it a message is refused with 429 queue_full.
const DefaultMaxQueuedPerSession = 20

// ValidOnBusy reports whether s names a strategy ("" is the agent's
// default).
func ValidOnBusy(s string) bool {
	switch s {
	case "", BusyReject, BusyEnqueue, BusyInterrupt, BusyRollback:
		return true
	}
	return false
}

// errInvalidOnBusy refuses a strategy that is not one.
func errInvalidOnBusy(got string) *Error {
	return Errorf(ErrInvalid, "invalid_request", "onBusy must be reject, enqueue, interrupt or rollback, got %q", got)
}

// Ends of a response that a newer message cancelled (its receipt is
// cancelled, with this code).
var (
	errInterrupted = &Error{Kind: ErrCancelled, Code: "interrupted", Detail: "Response interrupted by a newer message on its session"}
	errRolledBack  = &Error{Kind: ErrCancelled, Code: "rolled_back", Detail: "Response rolled back by a newer message on its session"}
)

// busyState is the service's part of busy sessions: the default strategy,
// the queue's bound, and the sessions this replica was told have a queue
// (by a "queued" control message), so that a response of one that ends
// here hands the session to the queue's head at once.
type busyState struct {
	onBusy    string
	maxQueued int

	mu     sync.Mutex
	queued map[sessionRef]time.Time // when the last "queued" message came
}

// sessionRef names a user's session.
type sessionRef struct{ user, session string }

func newBusyState(onBusy string, maxQueued int) busyState {
	if onBusy == "" {
		onBusy = DefaultOnBusy
	}
	return busyState{onBusy: onBusy, maxQueued: orPositive(maxQueued, DefaultMaxQueuedPerSession), queued: map[sessionRef]time.Time{}}
}

// strategy is the request's strategy, or the agent's default.
func (b *busyState) strategy(req ResponseRequest) string {
	if req.OnBusy == "" {
		return b.onBusy
	}
	return req.OnBusy
}

// told records that the session has a queue.
func (b *busyState) told(ref sessionRef) {
	b.mu.Lock()
	b.queued[ref] = time.Now()
	b.mu.Unlock()
}

// take reports (and forgets) whether the session was told to have a queue.
func (b *busyState) take(ref sessionRef) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.queued) == 0 {
		return false
	}
	_, ok := b.queued[ref]
	delete(b.queued, ref)
	return ok
}

// forgetOlder drops what was told before cutoff (the sessions another
// replica runs; the sweeper looks at queues anyway).
func (b *busyState) forgetOlder(cutoff time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for ref, at := range b.queued {
		if at.Before(cutoff) {
			delete(b.queued, ref)
		}
	}
}

// errQueueFull refuses a message past the session's queue bound.
func (s *Service) errQueueFull() *Error {
	return &Error{Kind: ErrRateLimited, Code: "queue_full", RetryAfter: time.Second,
		Detail: fmt.Sprintf("The session already has %d queued responses (the bound of a session's queue); retry once one has started", s.busy.maxQueued)}
}

// interruptActive cancels the response that holds the session, because a
// newer message interrupts it (keeping its partial answer) or rolls it
// back, wherever it runs: here, or on the replica a control message
// reaches; a turn waiting for an answer whose replica is gone is ended
// here. A session whose holder ended meanwhile needs nothing.
func (s *Service) interruptActive(ctx context.Context, user, session, strategy string) error {
	active, err := s.store.ActiveResponse(ctx, user, session)
	if err != nil || active == "" {
		return err
	}
	if r := s.local(active); r != nil && r.turn.UserID == user && r.SessionID == session {
		r.interrupt(strategy)
		return nil
	}
	// A waiting turn whose replica is gone is ended here (waits_parked_cancel.go).
	if receipt, found, err := s.store.Receipt(ctx, user, session, active); err == nil && found {
		cause := errInterrupted
		if strategy == BusyRollback {
			cause = errRolledBack
		}
		if _, ended, err := s.endWaitingElsewhere(ctx, user, session, active, receipt, strategy, cause); ended || err != nil {
			return err
		}
	}
	return s.sendControl(ctx, control{Op: strategy, ResponseID: active, User: user, Session: session})
}

// interrupt cancels the response for a newer message.
func (r *Response) interrupt(strategy string) {
	cause := errInterrupted
	if strategy == BusyRollback {
		cause = errRolledBack
	}
	r.cancel(abortCause{cause})
}

// onBusyControl acts on an "interrupt", "rollback" or "queued" control
// message; false when op is none of them.
func (s *Service) onBusyControl(c control) bool {
	switch c.Op {
	case opQueued:
		s.busy.told(sessionRef{c.User, c.Session})
		return true
	case BusyInterrupt, BusyRollback:
		if r := s.local(c.ResponseID); r != nil && r.turn.UserID == c.User && r.SessionID == c.Session {
			r.interrupt(c.Op)
		}
		return true
	}
	return false
}

// opQueued tells the replicas that a session has a queue: the one whose
// response holds it starts the head when that response ends.
const opQueued = "queued"

// keptOnInterrupt is what an interrupted response leaves in the
// transcript: its user turn and its partial answer, marked interrupted
// (metadata.interrupted: true). Nil for any other end.
func (r *Response) keptOnInterrupt(fail *Error, partial Envelope, now string) [][]byte {
	if fail != errInterrupted {
		return nil
	}
	msgs := r.transcriptMessages(partial, now)
	answer := msgs[len(msgs)-1]
	// appendMessage writes metadata last: its object and the message's
	// end are the last two bytes.
	if n := len(answer); n >= 2 && answer[n-2] == '}' && answer[n-1] == '}' {
		marked := make([]byte, 0, n+len(`,"interrupted":true`))
		marked = append(marked, answer[:n-2]...)
		marked = append(marked, `,"interrupted":true}}`...)
		msgs[len(msgs)-1] = marked
	}
	return msgs
}

// OnBusyOf reads the strategy a door's protocol carries in a JSON object it
// passes through (A2A message metadata, AG-UI forwardedProps): its
// "onBusy" member when that is a string, else "" (the agent's default).
// StartResponse refuses a string that names no strategy.
func OnBusyOf(obj json.RawMessage) string {
	if len(obj) == 0 || obj[0] != '{' || !bytes.Contains(obj, []byte(`"onBusy"`)) {
		return ""
	}
	var m struct {
		OnBusy json.RawMessage `json:"onBusy"`
	}
	var s string
	if json.Unmarshal(obj, &m) != nil || json.Unmarshal(m.OnBusy, &s) != nil {
		return ""
	}
	return s
}
