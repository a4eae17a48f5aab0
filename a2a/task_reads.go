package a2a

import (
	"context"
	"errors"
	"fmt"

	"github.com/harnest/harnest/runtime"
)

// Reading, listing, cancelling and following tasks from any replica: a
// stored snapshot brought up to date from its response's receipt and events.

// refresh folds what the response's log holds beyond the snapshot, and
// ends the task from the receipt when the log cannot (its replica died, or
// the events are no longer held). receipt is the response's receipt when
// the caller already has it (nil: read it when needed). It stores the
// task when the fold reached a boundary, and reports whether anything
// changed.
func (s *Server) refresh(ctx context.Context, p runtime.Principal, m *mapper, receipt *runtime.Envelope) (bool, error) {
	if terminal(m.task.Status.State) {
		return false, nil
	}
	folded := 0
	const batch = 1000
	for {
		frames, held, err := s.svc.LoggedEvents(ctx, p, m.task.ContextID, m.task.ID, m.seq, batch)
		if err != nil {
			return false, errUnavailable("The state store is unavailable; retry shortly")
		}
		if !held {
			break
		}
		for _, fr := range frames {
			m.apply(loggedFrame(fr))
		}
		folded += len(frames)
		if len(frames) < batch || terminal(m.task.Status.State) {
			break
		}
	}
	// A task the events leave open may have ended without an event: its
	// replica died and a sweeper failed its receipt. The receipt says so.
	if !terminal(m.task.Status.State) {
		if receipt == nil {
			env, err := s.svc.Receipt(ctx, p, m.task.ContextID, m.task.ID)
			switch {
			case err == nil:
				receipt = &env
			case !errors.Is(err, runtime.ErrNotFound):
				return false, errUnavailable("The state store is unavailable; retry shortly")
			}
		}
		if receipt != nil && len(m.applyReceipt(*receipt)) > 0 {
			folded++
		}
	}
	if folded > 0 && (terminal(m.task.Status.State) || interrupted(m.task.Status.State)) {
		s.save(p, m)
	}
	return folded > 0, nil
}

// load reads one of the user's tasks, brought up to date.
func (s *Server) load(ctx context.Context, p runtime.Principal, id string) (*mapper, error) {
	rec, found, err := s.tasks.get(ctx, p.UserID, id)
	if err != nil {
		return nil, errUnavailable("The state store is unavailable; retry shortly")
	}
	if !found {
		return nil, errTaskNotFound(id)
	}
	m := rec.mapper(s.now)
	if _, err := s.refresh(ctx, p, m, nil); err != nil {
		return nil, err
	}
	return m, nil
}

// getTask returns a task with at most historyLength history messages.
func (s *Server) getTask(ctx context.Context, p runtime.Principal, id string, historyLength *int) (Task, error) {
	if historyLength != nil && *historyLength < 0 {
		return Task{}, errInvalidParams("historyLength must not be negative")
	}
	m, err := s.load(ctx, p, id)
	if err != nil {
		return Task{}, err
	}
	return m.task.withHistory(historyLength), nil
}

// listTasks returns a page of the user's tasks.
func (s *Server) listTasks(ctx context.Context, p runtime.Principal, q listRequest) (listResult, error) {
	out, err := s.tasks.list(ctx, p.UserID, q)
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			return out, e
		}
		return out, errUnavailable("The state store is unavailable; retry shortly")
	}
	return out, nil
}

// cancelTask cancels a task wherever its response runs and returns it
// canceled.
func (s *Server) cancelTask(ctx context.Context, p runtime.Principal, id string) (Task, error) {
	m, err := s.load(ctx, p, id)
	if err != nil {
		return Task{}, err
	}
	if st := m.task.Status.State; terminal(st) {
		return Task{}, errTaskNotCancelable(fmt.Sprintf("Task %s is already %s", clip(id), state03(st)))
	}
	body, err := s.svc.CancelResponse(ctx, p, m.task.ContextID, m.task.ID)
	if err != nil {
		return Task{}, asA2A(err)
	}
	receipt, _ := runtime.ParseReceipt(body) // one that does not decode ends nothing
	if _, err := s.refresh(ctx, p, m, &receipt); err != nil {
		return Task{}, err
	}
	if !terminal(m.task.Status.State) {
		// The receipt is final but its events did not land: end it so.
		m.applyReceipt(receipt)
		s.save(p, m)
	}
	return m.task, nil
}

// openSubscription checks that a task can be followed: it exists and is not
// finished.
func (s *Server) openSubscription(ctx context.Context, p runtime.Principal, id string) (*mapper, error) {
	if !s.streaming {
		return nil, errUnsupported("This agent does not stream (its card says capabilities.streaming is false)")
	}
	m, err := s.load(ctx, p, id)
	if err != nil {
		return nil, err
	}
	if st := m.task.Status.State; terminal(st) {
		return nil, errUnsupported(fmt.Sprintf("Task %s is already %s; read it with GetTask", clip(id), state03(st)))
	}
	return m, nil
}

// follow streams a task from any replica: the task first, then the updates
// its response makes, until it ends or next waits for input.
func (s *Server) follow(ctx context.Context, p runtime.Principal, m *mapper, emit func(StreamEvent) error) error {
	first := m.task.clone()
	if err := emit(StreamEvent{Task: &first}); err != nil {
		return err
	}
	return s.svc.Follow(ctx, p, m.task.ContextID, m.task.ID, m.seq, func(fr runtime.Frame) (bool, error) {
		end := false
		for _, e := range m.apply(loggedFrame(fr)) {
			if e.final() {
				s.save(p, m)
				end = true
			}
			if err := emit(e); err != nil {
				return true, err
			}
		}
		return end, nil
	})
}
