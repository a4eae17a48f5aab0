package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"time"

	"github.com/harnest/harnest/store"
)

// DefaultFlushDelay is how long new events may wait in memory before they
// are written to Redis for followers. A response that ends sooner writes
// them with its receipt, so short turns pay no extra round trip.
const DefaultFlushDelay = 100 * time.Millisecond

// emitFromAgent is the Emit the agent gets: it refuses events once the
// segment is over and drops the types an agent may not send.
func (r *Response) emitFromAgent(e Event) error {
	r.mu.Lock()
	over := r.agentReturned
	r.mu.Unlock()
	if over {
		return context.Canceled // the agent returned: a late emit is refused
	}
	if err := r.ctx.Err(); err != nil {
		return err
	}
	switch e.Type {
	case EventCreated, EventCompleted, EventError, EventInProgress, EventApproval, EventClientTool, EventRetracted, EventSteered:
		return Errorf(ErrInvalid, "invalid_event", "an agent cannot emit %s", e.Type)
	}
	if !r.svc.policy.filter(&e) {
		return nil
	}
	r.watch.agentEmitted()
	return r.emit(e)
}

// emit numbers an event, folds it into the output, queues it for Redis and
// hands it to the streaming caller. Numbering and handing over happen under
// one lock, so events reach the caller in sequence order even when an agent
// emits from several goroutines; the caller always drains the channel, so
// the send cannot block forever.
func (r *Response) emit(e Event) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return errCancelled
	}
	e.Sequence, e.ResponseID, e.SessionID = r.seq, r.ID, r.SessionID
	b, err := r.encodeEvent(&e)
	if err != nil {
		return Errorf(ErrInvalid, "invalid_event", "event cannot be encoded: %v", err)
	}
	e.encoded = b
	r.seq++
	if r.pending == nil {
		r.pending = make([]store.Event, 0, 8) // a short turn's events, in one allocation
	}
	r.pending = append(r.pending, store.Event{Sequence: e.Sequence, Type: e.Type, JSON: b})
	r.out.add(e)
	if r.keeping {
		r.keep(e)
	}
	if e.Type == EventStateDelta {
		if r.state == nil {
			r.state = map[string]json.RawMessage{}
		}
		for k, v := range e.StateDelta {
			r.state[k] = v
		}
	}
	if !r.flushing && e.Type != EventCompleted && e.Type != EventError {
		r.flushing = true
		r.flushAlarm = flushAlarms.arm(r, r.svc.flushDelay)
	}
	if r.events == nil {
		return nil
	}
	if e.Type == EventCompleted || e.Type == EventError {
		r.events <- e // the segment's last event: the consumer reads until close
		return nil
	}
	select {
	case r.events <- e:
		return nil
	case <-r.ctx.Done():
		return r.ctx.Err()
	}
}

// eventArena is the size of the blocks a response encodes its events into:
// a short turn's events share one allocation.
const eventArena = 1024

// encodeEvent encodes e into the response's current block, or a fresh one
// when it has no room; the caller holds r.mu. The bytes returned are never
// written again (their capacity ends where they end), so every reader of
// the event may keep them.
func (r *Response) encodeEvent(e *Event) ([]byte, error) {
	hint := e.sizeHint()
	if cap(r.arena)-len(r.arena) < hint {
		r.arena = make([]byte, 0, max(eventArena, hint))
	}
	free := r.arena[len(r.arena):len(r.arena)]
	b, err := e.appendJSON(free)
	if err != nil {
		return nil, err
	}
	if len(b) <= cap(free) { // written in the block: keep it there
		r.arena = r.arena[:len(r.arena)+len(b)]
		return b[:len(b):len(b)], nil
	}
	return b, nil // longer than its hint: append gave it its own array
}

// detachStream closes the streaming caller's channel after a boundary; later
// segments reach followers through Redis only.
func (r *Response) detachStream() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.events != nil {
		close(r.events)
		r.events = nil
	}
}

// takePending removes and returns the events not yet in Redis. A flush
// (beforeEnd) leaves a segment's last event (response.completed or error)
// and anything after it for the step that ends the segment: a follower
// that finds response.completed in the log then also finds the receipt it
// ends with.
func (r *Response) takePending(beforeEnd bool) []store.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := r.pending
	r.pending = nil
	if beforeEnd {
		if i := slices.IndexFunc(p, endsSegment); i >= 0 {
			p, r.pending = p[:i], p[i:]
		}
	}
	if r.flushing && r.flushAlarm != nil {
		// A commit takes them first: no flush is due (a short turn's
		// alarm never fires). A flush that fired takes them itself.
		r.flushAlarm.disarm()
		r.flushAlarm = nil
	}
	r.flushing = false
	return p
}

// endsSegment reports whether e is the last event of a segment, which only
// the step that ends the segment writes.
func endsSegment(e store.Event) bool {
	return e.Type == EventCompleted || e.Type == EventError
}

// flush writes pending events to Redis and tells followers.
func (r *Response) flush() {
	r.flushMu.Lock()
	defer r.flushMu.Unlock()
	events := r.takePending(true)
	if len(events) == 0 {
		return
	}
	ctx := context.WithoutCancel(r.ctx) // the store bounds the call in time
	err := r.beginLate(ctx)
	if err == nil {
		err = r.svc.store.AppendEvents(ctx, r.turn.UserID, r.SessionID, r.ID, r.epoch, events)
	}
	if errors.Is(err, store.ErrFenced) {
		r.fenced() // another replica runs it: these events are not the turn's
		return
	}
	if err != nil {
		// Keep them for the next flush or the final step, in order: the log
		// must not have a gap.
		r.svc.log.Warn("cannot log events; keeping them for the next write", "responseId", r.ID, "err", err)
		r.svc.observer.StoreFailed()
		r.mu.Lock()
		r.pending = append(events, r.pending...)
		r.mu.Unlock()
		return
	}
	r.sendWebhookEvents(events)
}

// beginLate begins a response whose new session is not in the store yet
// (see begin) before a write that does not end it: a flush (followers may
// then find it) or a suspension's step. The caller holds flushMu.
func (r *Response) beginLate(ctx context.Context) error {
	if r.inStore.Load() {
		return nil
	}
	if _, err := r.svc.store.BeginResponse(ctx, r.beginStep(r.turn.UserID, true)); err != nil {
		return err
	}
	r.inStore.Store(true)
	return nil
}

// commit writes a step with every event not yet in Redis, after any flush
// in flight, so the log stays in sequence order. The events join c, which
// keeps them should the step have to be written again. A response whose
// new session is not in the store yet (see begin) makes it with its final
// step, or begins first when the step keeps the session (a suspension).
func (r *Response) commit(ctx context.Context, c *store.Commit) error {
	r.flushMu.Lock()
	defer r.flushMu.Unlock()
	c.Events = append(c.Events, r.takePending(false)...)
	if !r.inStore.Load() {
		if !c.Release {
			if err := r.beginLate(ctx); err != nil {
				return err
			}
		} else {
			c.CreateSession = true
		}
	}
	c.Epoch = r.epoch
	err := r.svc.store.CommitResponse(ctx, *c)
	if err == nil && c.CreateSession {
		r.inStore.Store(true)
	}
	return err
}

// Queued is how many events of the stream wait to be taken: a transport
// that writes to a socket flushes only when none wait, so a burst of
// events goes out in one write.
func (r *Response) Queued() int { return len(r.stream) }

// Each calls fn for every event of a streaming response's first segment, in
// order, until its boundary. Once fn returns an error (the client went
// away), the response is cancelled unless it runs in the background, and
// the rest of the segment is drained without calling fn. It returns the
// boundary's outcome.
func (r *Response) Each(fn func(Event) error) Outcome {
	failed := false
	for e := range r.stream {
		if failed {
			continue
		}
		if err := fn(e); err != nil {
			failed = true
			if !r.Background {
				r.Cancel()
			}
		}
	}
	return r.Outcome()
}
