package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/harnest/harnest/store"
)

// Steers is a running turn's inbox of steering messages (steer.go). The
// steers themselves are kept in the store under the response
// (store.Steers) until the turn takes them, so that none is lost with a
// replica; the inbox holds only whether some may wait (woken: a steer was
// handed in here, or a control message said so, or the run was claimed or
// started from a queue and takes what was left). A backend that takes
// steers (Steerable) reads it at its step boundaries with Take, or waits
// for Ready. The zero of a nil *Steers holds nothing.
type Steers struct {
	r *Response

	mu    sync.Mutex
	woken bool          // steers may wait in the store: Take looks
	ready chan struct{} // signalled when woken (capacity 1); made by the first Ready
}

// newSteers is the inbox of r's turn, or nil when the agent takes no
// steers. It is part of the Response (no allocation of its own: every
// turn of a steerable agent has one, few are steered). A turn that runs
// again (claimed) or from a queue looks in the store at its first step
// (drain): steers may have been kept for it before it ran here.
func newSteers(r *Response, drain bool) *Steers {
	if !r.svc.TakesSteers() {
		return nil
	}
	r.steerBox.r = r
	r.steerBox.woken = drain
	return &r.steerBox
}

// Ready is signalled when a steer arrives (nil, never ready, for a nil
// inbox). The store may hold several by then: Take them all.
func (s *Steers) Ready() <-chan struct{} {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ready == nil {
		s.ready = make(chan struct{}, 1)
		if s.woken {
			s.ready <- struct{}{} // arrived before anyone waited
		}
	}
	return s.ready
}

// Pending reports whether steers may wait to be taken.
func (s *Steers) Pending() bool {
	if s == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.woken
}

// Take takes every steer waiting, in the order they arrived, from the
// store (fenced by the run's epoch), and announces each
// (response.steered): the backend hands them to its agent now, and the
// transcript keeps them at this point of the answer. A steer whose content
// no longer resolves (its asset was deleted meanwhile) is dropped with a
// log line. An error means the response is over, or another replica
// claimed its run (which takes the steers then).
func (s *Steers) Take() ([]Steer, error) {
	if s == nil {
		return nil, nil
	}
	s.mu.Lock()
	woken := s.woken
	s.woken = false
	s.mu.Unlock()
	if !woken {
		return nil, nil
	}
	r := s.r
	ctx, cancel := context.WithTimeout(r.ctx, 10*time.Second)
	defer cancel()
	kept, err := r.svc.store.TakeSteers(ctx, r.turn.UserID, r.SessionID, r.ID, r.epoch)
	switch {
	case errors.Is(err, store.ErrFenced):
		r.fenced()
		return nil, errClaimed
	case err != nil:
		// Nothing was taken: the steers stay kept, and the turn's end
		// takes what it never took (steer_leftover.go).
		r.svc.log.Warn("cannot take the steers of a turn; its next step tries again", "responseId", r.ID, "err", err)
		s.wake()
		return nil, nil
	}
	taken := make([]Steer, 0, len(kept))
	for _, b := range kept {
		m, ok := decodeSteer(b)
		if !ok {
			continue
		}
		content, err := r.svc.resolveContent(ctx, Principal{UserID: r.turn.UserID}, ResponseRequest{Input: m.Input, Parts: m.Parts, SessionID: r.SessionID})
		if err != nil {
			r.svc.log.Warn("cannot take a steer: its content does not resolve", "responseId", r.ID, "steerId", m.ID, "err", err)
			continue
		}
		st := Steer{ID: m.ID, Input: m.Input, Content: content}
		info := &SteerInfo{ID: st.ID, Input: st.Input, Content: transcriptContent(Turn{Input: st.Input, Content: st.Content})}
		if err := r.emit(Event{Type: EventSteered, Steered: info}); err != nil {
			return nil, err
		}
		taken = append(taken, st)
	}
	return taken, nil
}

// wake tells the inbox that steers may wait in the store.
func (s *Steers) wake() {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.woken = true
	select {
	case s.ready <- struct{}{}: // nil until someone waits: never ready
	default:
	}
}

// decodeSteer reads a kept steer.
func decodeSteer(b []byte) (steerMessage, bool) {
	var m steerMessage
	if json.Unmarshal(b, &m) != nil || m.ID == "" {
		return steerMessage{}, false
	}
	return m, true
}
