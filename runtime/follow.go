package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/harnest/harnest/store"
)

// Frame is one logged event of a response, as followers read it.
type Frame struct {
	Sequence int
	Type     string
	JSON     []byte
}

// followPoll is how often a follower looks again when no notification came
// (a safety net for missed pub/sub messages and for replicas that died).
const followPoll = 2 * time.Second

// Follow reads one of the user's responses from Redis, from any replica: it
// calls fn for every event after sequence after (-1 for all), then follows
// new events live until fn returns stop, the response reaches a final state
// (completed, failed, cancelled or denied; a requires_action boundary is
// followed through), or ctx ends. Leaving never cancels the response.
func (s *Service) Follow(ctx context.Context, p Principal, sessionID, responseID string, after int, fn func(Frame) (stop bool, err error)) error {
	f, err := s.startFollow(ctx, p, sessionID, responseID, after, fn)
	if err != nil {
		return err
	}
	defer f.stop()
	// Only the waiting is here; the reading is in catchUp and the setup in
	// startFollow. An idle follower waits in this frame, below every frame
	// of the request's handlers: the smaller it is, the smaller the stack
	// each of thousands of idle followers keeps (a goroutine stack is
	// halved while less than a quarter of it is in use).
	for {
		if done, err := f.catchUp(); done {
			return err
		}
		select {
		case <-f.notify:
		case <-f.poll.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// follower is one Follow call: what it follows, where it is, and what
// wakes it.
type follower struct {
	s                     *Service
	ctx                   context.Context
	p                     Principal
	sessionID, responseID string
	after                 int // the last sequence passed to fn
	fn                    func(Frame) (stop bool, err error)

	notify   <-chan struct{} // the hub's signal of new events (nil without a hub)
	unlisten func()
	poll     *time.Ticker // the safety net for missed signals
}

// startFollow checks the response and subscribes to its events.
func (s *Service) startFollow(ctx context.Context, p Principal, sessionID, responseID string, after int, fn func(Frame) (bool, error)) (*follower, error) {
	if _, err := s.GetResponse(ctx, p, sessionID, responseID); err != nil {
		return nil, err
	}
	s.observer.FollowStarted()
	notify, unlisten, err := s.listen(ctx, p.UserID, sessionID, responseID)
	if err != nil {
		s.observer.FollowEnded()
		return nil, s.storeFailure(err)
	}
	return &follower{s: s, ctx: ctx, p: p, sessionID: sessionID, responseID: responseID, after: after, fn: fn,
		notify: notify, unlisten: unlisten, poll: time.NewTicker(followPoll)}, nil
}

// stop ends the subscription.
func (f *follower) stop() {
	f.poll.Stop()
	f.unlisten()
	f.s.observer.FollowEnded()
}

// catchUp passes every logged event after f.after to f.fn. done is true
// when the follow ends (fn stopped or failed, the response ended, or the
// store failed) and err is then what Follow returns; otherwise everything
// logged so far was passed and the follower waits for more.
func (f *follower) catchUp() (done bool, err error) {
	s, ctx := f.s, f.ctx
	for {
		events, err := s.store.EventsAfter(ctx, f.p.UserID, f.sessionID, f.responseID, f.after, 500)
		if errors.Is(err, store.ErrEventsTrimmed) {
			return true, Errorf(ErrInvalid, "events_not_held",
				"Events after sequence %d are no longer held; read the response with GET /responses/%s?sessionId=...", f.after, f.responseID)
		}
		if err != nil {
			if ctx.Err() != nil {
				return true, ctx.Err()
			}
			return true, s.storeFailure(err)
		}
		for _, e := range events {
			f.after = e.Sequence
			stop, err := f.fn(Frame{Sequence: e.Sequence, Type: e.Type, JSON: e.JSON})
			if err != nil || stop || isFinalFrame(e.Type, e.JSON) {
				return true, err
			}
		}
		if len(events) > 0 {
			continue
		}
		// Nothing new. A response whose replica died is failed by a sweeper
		// without an event: end with an error frame then.
		receipt, err := s.GetResponse(ctx, f.p, f.sessionID, f.responseID)
		if err != nil {
			return true, err
		}
		if !isTerminal(receipt) {
			return false, nil
		}
		if more, _ := s.store.EventsAfter(ctx, f.p.UserID, f.sessionID, f.responseID, f.after, 1); len(more) > 0 {
			continue // the last events landed meanwhile
		}
		frame, _ := json.Marshal(Event{Type: EventError, Sequence: f.after + 1, ResponseID: f.responseID, SessionID: f.sessionID,
			Error: "The response ended without its events; read its receipt"})
		_, err = f.fn(Frame{Sequence: f.after + 1, Type: EventError, JSON: frame})
		return true, err
	}
}

// isFinalFrame reports a frame after which a response has no more events.
func isFinalFrame(typ string, frame []byte) bool {
	switch typ {
	case EventError:
		return true
	case EventCompleted:
		return statusOf(frame) != StatusRequiresAction
	}
	return false
}

// listen subscribes to the response's event notifications through the
// replica's hub; without a hub (a service that was not started) the
// follower polls.
func (s *Service) listen(ctx context.Context, user, session, responseID string) (<-chan struct{}, func(), error) {
	if s.hub == nil {
		return nil, func() {}, nil
	}
	return s.hub.ListenEvents(ctx, user, session, responseID)
}

// LoggedEvents reads up to limit of the user's logged events of a response
// after sequence after (-1 for all), without following: for transports
// that fold a response's log into their own view (A2A tasks). held is
// false when those events are no longer held (the log is bounded, or it
// expired); the receipt still tells how the response ended.
func (s *Service) LoggedEvents(ctx context.Context, p Principal, sessionID, responseID string, after, limit int) (frames []Frame, held bool, err error) {
	events, err := s.store.EventsAfter(ctx, p.UserID, sessionID, responseID, after, limit)
	if errors.Is(err, store.ErrEventsTrimmed) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, s.storeFailure(err)
	}
	frames = make([]Frame, len(events))
	for i, e := range events {
		frames[i] = Frame{Sequence: e.Sequence, Type: e.Type, JSON: e.JSON}
	}
	return frames, true, nil
}
