package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/harnest/harnest/store"
)

// Queued responses (the strategies enqueue, interrupt and rollback of
// busy.go). A message to a busy session is stored at once as a queued
// response (store.QueueResponse, in one operation with the check that the
// session is busy): its queued receipt, its response.created event and the
// request to run it from (rerunRequest), held by no replica. When the
// response that holds the session ends, the queue's head takes the session
// (store.StartQueued, exactly once) and runs on the replica that took it:
//
//   - the replica whose response ends starts the head at once when it was
//     told the session has a queue (a "queued" control message);
//   - the accepting replica tries too, right after queuing (the holder may
//     have ended meanwhile);
//   - every sweeper looks at the queued runs once per liveness TTL, so a
//     missed message or a dead replica never strands a queue.
//
// The caller of a queued response is answered from the store, on the
// replica it called: a stream follows the response's log, a JSON caller
// waits for its first boundary; either going away cancels it (unless it
// runs in the background). A queued response cancelled leaves the queue
// and never runs.

// StatusQueued is the receipt status of a response waiting for its turn on
// its session.
const StatusQueued = "queued"

// maxBusyTries bounds how often StartResponse goes back and forth between
// a session that was busy when it began and idle when it queued.
const maxBusyTries = 3

// whenBusy answers a message to a busy session by its strategy: reject
// (errSessionBusy), or queue it (at the head for interrupt and rollback,
// which then cancel the running response). StartResponse calls it when the
// session refused the response; nothing of the response is stored yet.
// counted is what the response took of its user's limits: its day's turn
// stays counted when it is queued, and is given back when it is not
// (queue_limits.go).
func (s *Service) whenBusy(ctx context.Context, p Principal, req ResponseRequest, id, sessionID string, metadata json.RawMessage, counted *userHold) (*Response, error) {
	strategy := s.busy.strategy(req)
	if strategy == BusyReject || req.busyTries >= maxBusyTries {
		counted.giveBack()
		return nil, errSessionBusy
	}
	r := &Response{ID: id, SessionID: sessionID, Background: req.Background, svc: s, metadata: metadata,
		done: make(chan struct{}), boundary: make(chan struct{}), epoch: 1}
	r.turn.UserID = p.UserID
	queued := r.envelope(StatusQueued)
	receipt, _ := queued.encode()
	created := Event{Type: EventCreated, ResponseID: id, SessionID: sessionID, Metadata: metadata}
	createdJSON, _ := created.encode()
	err := s.store.QueueResponse(ctx, store.Enqueue{User: p.UserID, Session: sessionID, ResponseID: id,
		Receipt: receipt, Request: encodeRerun(req, p.UserID, false), Webhook: req.Webhook.stored(),
		Events: []store.Event{{Sequence: 0, Type: EventCreated, JSON: createdJSON}}, Bound: s.busy.maxQueued,
		Front: strategy != BusyEnqueue, Now: s.timestamp()})
	if err != nil {
		counted.giveBack()
	}
	switch {
	case errors.Is(err, store.ErrSessionIdle):
		req.busyTries++
		return s.StartResponse(ctx, p, req) // it ended meanwhile: begin as usual
	case errors.Is(err, store.ErrSessionNotFound):
		return nil, errSessionNotFound
	case errors.Is(err, store.ErrQueueFull):
		return nil, s.errQueueFull()
	case err != nil:
		return nil, s.storeFailure(err)
	}
	ref := sessionRef{p.UserID, sessionID}
	s.busy.told(ref) // the holder may run here
	if err := s.sendControl(ctx, control{Op: opQueued, ResponseID: id, User: p.UserID, Session: sessionID}); err != nil {
		s.log.Warn("cannot tell the replicas of a queued response; a sweep starts it", "responseId", id, "err", err)
	}
	if strategy != BusyEnqueue {
		if err := s.interruptActive(ctx, p.UserID, sessionID, strategy); err != nil {
			s.log.Warn("cannot interrupt the running response of the session", "sessionId", sessionID, "err", err)
		}
	}
	go s.startNextQueued(p.UserID, sessionID) // the holder may have ended meanwhile
	s.followQueued(ctx, p, r, req)
	return r, nil
}

// followQueued makes r the caller's view of a queued response: its events
// come from the store's log, and its outcome from its receipt.
func (s *Service) followQueued(ctx context.Context, p Principal, r *Response, req ResponseRequest) {
	r.ctx, r.cancel = context.WithCancelCause(context.WithoutCancel(ctx))
	if req.Stream {
		r.stream = make(chan Event, streamQueue)
		r.events = r.stream
	}
	switch {
	case req.Background && !req.Stream:
		// Nobody waits here: the caller has the queued receipt, and reads
		// or follows the response as any other.
		queued := r.envelope(StatusQueued)
		body, _ := queued.encode()
		r.cancel(nil)
		close(r.done)
		r.reachBoundary(Outcome{Envelope: queued, Body: body})
		return
	case req.Background:
	case req.Stream:
		r.detachCaller = context.AfterFunc(ctx, func() { r.cancel(context.Canceled) })
	default:
		r.caller = ctx
	}
	go r.followQueue(p)
}

// followQueue passes the response's logged events to its stream until its
// first boundary, then its receipt to Outcome. A cancelled view cancels the
// response wherever it is (queued or running).
func (r *Response) followQueue(p Principal) {
	s := r.svc
	defer close(r.done)
	stream := r.stream
	_ = s.Follow(r.ctx, p, r.SessionID, r.ID, -1, func(f Frame) (bool, error) {
		if stream != nil {
			e, _ := f.Event() // a frame that does not decode goes as its type and sequence
			select {
			case stream <- e:
			case <-r.ctx.Done():
				return true, nil
			}
		}
		return f.Type == EventCompleted || f.Type == EventError, nil
	})
	bg := context.Background()
	if r.ctx.Err() != nil {
		if _, err := s.CancelResponse(bg, p, r.SessionID, r.ID); err != nil {
			s.log.Warn("cannot cancel a queued response whose caller left", "responseId", r.ID, "err", err)
		}
	}
	r.cancel(nil)
	body, err := s.GetResponse(bg, p, r.SessionID, r.ID)
	out := receiptOutcome(body)
	if err != nil {
		out = Outcome{Err: AsError(err)}
	}
	if stream != nil {
		close(stream)
	}
	r.reachBoundary(out)
}

// receiptOutcome is the outcome a receipt tells.
func receiptOutcome(body []byte) Outcome {
	var env Envelope
	if json.Unmarshal(body, &env) != nil {
		return Outcome{Body: body, Err: errAgentFailed}
	}
	out := Outcome{Envelope: env, Body: body}
	code := ""
	if env.Error != nil {
		code = env.Error.Code
	}
	switch env.Status {
	case StatusCompleted, StatusRequiresAction:
	case StatusDenied:
		out.Err = errDenied
	case StatusCancelled:
		switch code {
		case errInterrupted.Code:
			out.Err = errInterrupted
		case errRolledBack.Code:
			out.Err = errRolledBack
		default:
			out.Err = errCancelled
		}
	case StatusFailed:
		out.Err = failedError(code, "The response failed")
	default:
		out.Err = &Error{Kind: ErrUnavailable, Code: "unexpected_status", Detail: "The response ended with status " + env.Status}
	}
	return out
}

// startNextQueued hands the session to its queue's head when nobody holds
// it, and runs the head here.
func (s *Service) startNextQueued(user, session string) {
	s.mu.Lock()
	closing := s.closing
	s.mu.Unlock()
	if closing {
		return // the other replicas' sweeps start it
	}
	ctx, cancel := context.WithTimeout(context.Background(), recordTimeout)
	defer cancel()
	slot, ok := s.slotForQueued(ctx, user, session) // queue_limits.go
	if !ok {
		return // the user has no slot free: a sweep tries again
	}
	run, found, err := s.store.StartQueued(ctx, user, session, s.replica, s.lease)
	if err != nil || !found {
		slot.hold.release()
	}
	if err != nil {
		s.log.Warn("cannot start the head of a session's queue; a sweep tries again", "sessionId", session, "err", err)
		return
	}
	if !found {
		return
	}
	if err := s.runQueued(ctx, user, session, run, slot); err != nil {
		slot.hold.release()
		s.log.Warn("cannot run a queued response; failing it", "responseId", run.ResponseID, "err", err)
		s.failQueued(ctx, user, session, run, err)
	}
}

// runQueued runs here a queued response that took its session, from its
// stored request, as its first attempt: its events follow response.created
// (logged when it was queued), from response.in_progress.
func (s *Service) runQueued(ctx context.Context, user, session string, run store.QueuedRun, slot queuedSlot) error {
	r, err := s.prepareStored(ctx, storedRun{user: user, session: session, responseID: run.ResponseID,
		request: run.Request, webhook: run.Webhook, epoch: 1, attempt: 1, lastSequence: run.LastSequence})
	if err != nil {
		return err
	}
	r.turn.Journal = newJournal(r, nil)
	r.startTrace(s.tracer)
	r.emit(Event{Type: EventInProgress})
	s.busy.told(sessionRef{user, session}) // more may be queued behind it: its end starts the next
	r.limits = slot.hold
	slot.owner.Store(r)
	s.runners.run(r)
	return nil
}

// failQueued records as failed a queued response that took its session but
// cannot run, releasing the session for the next one.
func (s *Service) failQueued(ctx context.Context, user, session string, run store.QueuedRun, cause error) {
	fail := AsError(cause)
	env := Envelope{ID: run.ResponseID, SessionID: session, EnvelopeBody: EnvelopeBody{
		Status: StatusFailed, Output: []OutputItem{}, Metadata: json.RawMessage("{}"), Error: &EnvelopeError{Code: fail.Code}}}
	receipt, _ := env.encode()
	e := Event{Type: EventError, Sequence: run.LastSequence + 1, ResponseID: run.ResponseID, SessionID: session, Error: fail.Detail}
	encoded, _ := e.encode()
	err := s.store.CommitResponse(ctx, store.Commit{User: user, Session: session, ResponseID: run.ResponseID, Receipt: receipt,
		Events: []store.Event{{Sequence: e.Sequence, Type: e.Type, JSON: encoded}}, Release: true, Replica: s.replica, Epoch: 1, Now: s.timestamp()})
	if err != nil {
		s.log.Warn("cannot fail a queued response; its lease lapses and a sweep fails it", "responseId", run.ResponseID, "err", err)
		return
	}
	if w := storedWebhook(run.Webhook); w != nil {
		s.enqueueWebhook(user, run.ResponseID, w, receipt)
	}
	go s.startNextQueued(user, session)
}

// handOnQueue starts the session's queued head once a response of it ended
// here, when this replica was told the session has a queue.
func (s *Service) handOnQueue(r *Response) {
	if s.busy.take(sessionRef{r.turn.UserID, r.SessionID}) {
		go s.startNextQueued(r.turn.UserID, r.SessionID)
	}
}

// cancelQueued cancels a response that is still queued: it leaves the
// queue, its receipt becomes cancelled and its log ends with it, and its
// webhook (when it was queued with one) posts that receipt. ok is false
// when it is not queued (any more): it is cancelled where it runs.
func (s *Service) cancelQueued(ctx context.Context, p Principal, sessionID, responseID string, receipt []byte) ([]byte, bool, error) {
	if statusOf(receipt) != StatusQueued {
		return nil, false, nil
	}
	env := Envelope{ID: responseID, SessionID: sessionID, EnvelopeBody: EnvelopeBody{
		Status: StatusCancelled, Output: []OutputItem{}, Metadata: json.RawMessage("{}"), Error: &EnvelopeError{Code: errCancelled.Code}}}
	body, _ := env.encode()
	e := Event{Type: EventCompleted, Sequence: 1, Envelope: &env}
	encoded, _ := e.encode()
	webhook, ok, err := s.store.CancelQueued(ctx, p.UserID, sessionID, responseID, body, []store.Event{{Sequence: 1, Type: EventCompleted, JSON: encoded}})
	if err != nil {
		return nil, false, s.storeFailure(err)
	}
	if !ok {
		return nil, false, nil
	}
	if w := storedWebhook(webhook); w != nil { // a final like any other: its webhook is sent
		s.enqueueWebhook(p.UserID, responseID, w, body)
	}
	return body, true, nil
}

// sweepQueued starts the heads of the queues whose session nobody holds
// (the replica that was to start them missed its message, or died), once
// per liveness TTL: the queued runs are found by a scan of the run registry.
func (s *Service) sweepQueued(ctx context.Context) {
	if time.Since(s.queuedSweptAt) < s.liveness {
		return
	}
	s.queuedSweptAt = time.Now() // only the sweeper's goroutine reads and writes it
	s.busy.forgetOlder(time.Now().Add(-10 * s.lease))
	runs, err := s.store.RunsOf(ctx, store.QueuedReplica, 100)
	if err != nil {
		if ctx.Err() == nil {
			s.log.Warn("cannot read the queued runs", "err", err)
		}
		return
	}
	seen := map[sessionRef]bool{}
	for _, run := range runs {
		ref := sessionRef{run.User, run.Session}
		if !seen[ref] {
			seen[ref] = true
			s.startNextQueued(run.User, run.Session)
		}
	}
}
