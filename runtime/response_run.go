package runtime

import (
	"context"
	"errors"
	"time"
)

// A response's run: the agent under its deadline and a run slot, the
// session lease renewed while it lives.

func (r *Response) run() {
	s := r.svc
	defer s.untrack(r)
	defer close(r.done)
	defer r.cancel(nil)

	// The lease is renewed from the start, also while the run waits for a
	// slot, until its final step is recorded (renewer.go).
	s.renewal.add(r, r.watch.started)
	defer s.renewal.remove(r)
	runErr := r.runAgent(r.admitted)
	if r.handedOff(runErr) {
		r.leave() // another replica runs it again (handoff.go)
		return
	}
	r.finish(runErr)
}

var errDeadline = errors.New("response deadline passed")

// emitCompleted emits response.completed with env and returns env's
// receipt (the envelope's body is encoded once for both).
func (r *Response) emitCompleted(env *Envelope) []byte {
	event, receipt, err := completedWithReceipt(env)
	if err != nil { // raw JSON of the envelope that cannot be encoded
		r.emit(Event{Type: EventCompleted, Envelope: env})
		receipt, _ = env.encode()
		return receipt
	}
	r.emit(event)
	return receipt
}

// forCaller returns a backend's error as the caller should see it, or nil
// when it is an agent failure (its detail never reaches the caller). A
// backend says so with an *Error of one of these kinds: ErrAgentUnavailable
// (503: try later), ErrAgentRefused (404: do not retry), ErrRateLimited
// (429 with Retry-After), ErrInvalid (400: the input was refused, such as
// the relay's question that is too long), or ErrUnavailable with
// CodeStoreUnavailable (503: a store failure it passed on, Turn.History's
// or its own store call's).
func forCaller(err error) *Error {
	var e *Error
	if !errors.As(err, &e) {
		return nil
	}
	switch {
	case errors.Is(e.Kind, ErrAgentUnavailable), errors.Is(e.Kind, ErrAgentRefused),
		errors.Is(e.Kind, ErrRateLimited), errors.Is(e.Kind, ErrInvalid):
		return e
	case e.Kind == ErrUnavailable && e.Code == CodeStoreUnavailable:
		return e
	}
	return nil
}

// runAgent runs the agent under the deadline and behind admission. The
// deadline covers the wait for a slot too, so no run queues forever. A
// suspension gives the slot back and stops the deadline; resuming takes a
// slot again with a fresh deadline.
func (r *Response) runAgent(first *ticket) error {
	s := r.svc
	// The agent runs under the response's own context: the deadline
	// cancels it with errDeadline (one context per response, not two).
	ctx := r.ctx
	defer r.leaveSegment()
	err := r.enterSegment(ctx, first)
	if err == nil {
		err = s.agent.Run(ctx, &r.turn, r.emitFromAgent)
		r.mu.Lock()
		r.agentReturned = true
		r.mu.Unlock()
		if err == nil && ctx.Err() != nil {
			err = ctx.Err() // the agent ignored cancellation and returned nil
		}
	}
	if err != nil && context.Cause(ctx) == errDeadline {
		return errDeadline
	}
	return err
}

// enterSegment starts the segment's deadline and waits for a run slot with
// the ticket.
func (r *Response) enterSegment(ctx context.Context, t *ticket) error {
	r.mu.Lock()
	if r.deadline != nil {
		r.deadline.disarm()
	}
	r.deadline = deadlineAlarms.arm(r, r.svc.timeout)
	r.mu.Unlock()
	queuedAt := time.Now()
	if err := t.acquire(ctx); err != nil {
		return err
	}
	r.svc.observer.AdmissionWaited(time.Since(queuedAt))
	r.mu.Lock()
	r.slot = t
	r.mu.Unlock()
	return nil
}

// deadlinePassed cancels the response when its segment's deadline passes.
func (r *Response) deadlinePassed() { r.cancel(errDeadline) }

// leaveSegment stops the deadline and frees the run slot.
func (r *Response) leaveSegment() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.deadline != nil {
		r.deadline.disarm()
		r.deadline = nil
	}
	if r.slot != nil {
		r.slot.release()
		r.slot = nil
	}
}
