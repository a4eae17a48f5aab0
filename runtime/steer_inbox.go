package runtime

import (
	"context"
	"sync"
	"time"
)

// Steers is a running turn's inbox of steering messages (steer.go): what
// callers handed it and the backend has not taken yet. A backend that
// takes steers (Steerable) reads it at its step boundaries with Take, or
// waits for Ready. The zero of a nil *Steers holds nothing.
type Steers struct {
	r *Response

	mu      sync.Mutex
	pending []Steer
	ready   chan struct{} // signalled when a steer arrives (capacity 1); made by the first Ready
}

// newSteers is the inbox of r's turn, or nil when the agent takes no
// steers. It is part of the Response (no allocation of its own: every
// turn of a steerable agent has one, few are steered).
func newSteers(r *Response) *Steers {
	if !r.svc.TakesSteers() {
		return nil
	}
	r.steerBox.r = r
	return &r.steerBox
}

// Ready is signalled when a steer arrives (nil, never ready, for a nil
// inbox). The inbox may hold several by then: Take them all.
func (s *Steers) Ready() <-chan struct{} {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ready == nil {
		s.ready = make(chan struct{}, 1)
		if len(s.pending) > 0 {
			s.ready <- struct{}{} // arrived before anyone waited
		}
	}
	return s.ready
}

// Pending reports whether steers wait to be taken.
func (s *Steers) Pending() bool {
	if s == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.pending) > 0
}

// Take takes every steer waiting, in the order they arrived, and announces
// each (response.steered): the backend hands them to its agent now, and
// the transcript keeps them at this point of the answer. An error means
// the response is over; the steers are then dropped.
func (s *Steers) Take() ([]Steer, error) {
	if s == nil {
		return nil, nil
	}
	s.mu.Lock()
	taken := s.pending
	s.pending = nil
	s.mu.Unlock()
	for _, m := range taken {
		info := &SteerInfo{ID: m.ID, Input: m.Input, Content: transcriptContent(Turn{Input: m.Input, Content: m.Content})}
		if err := s.r.emit(Event{Type: EventSteered, Steered: info}); err != nil {
			return nil, err
		}
	}
	return taken, nil
}

// deliver puts a steer in the inbox, its media resolved in the response's
// session. A steer whose content no longer resolves (its asset was deleted
// meanwhile) is dropped with a log line.
func (s *Steers) deliver(ctx context.Context, m steerMessage) {
	if s == nil {
		return
	}
	r := s.r
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	content, err := r.svc.resolveContent(ctx, Principal{UserID: r.turn.UserID}, ResponseRequest{Input: m.Input, Parts: m.Parts, SessionID: r.SessionID})
	if err != nil {
		r.svc.log.Warn("cannot take a steer: its content does not resolve", "responseId", r.ID, "steerId", m.ID, "err", err)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pending = append(s.pending, Steer{ID: m.ID, Input: m.Input, Content: content})
	select {
	case s.ready <- struct{}{}: // nil until someone waits: never ready
	default:
	}
}
