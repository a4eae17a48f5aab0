package schedule

import (
	"context"

	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/store"
)

// watchOutcome follows a started fire's response to its final receipt and
// tells Options.OnFire again, with the outcome (completed, failed,
// cancelled or denied): the owner's feed gets the result, not only the
// start. The response may wait for an approval for days and move to
// another replica; the watch follows it from here (Runtime.Follow reads
// the store) until the scheduler closes. A replica that stops first tells
// nothing more: the fire's response and receipt stay in the session, and
// its webhook, when set, is sent wherever the turn ends.
func (s *Scheduler) watchOutcome(ctx context.Context, key store.FireKey, fire FireView) {
	if ctx == nil || s.o.OnFire == nil || fire.ResponseID == "" || fire.Status != "started" {
		return
	}
	s.watchMu.Lock()
	defer s.watchMu.Unlock()
	if ctx.Err() != nil {
		return // closing: Close waits for the watches already begun
	}
	s.watches.Add(1)
	go func() {
		defer s.watches.Done()
		p := runtime.Principal{UserID: key.User}
		err := s.o.Service.Follow(ctx, p, fire.SessionID, fire.ResponseID, -1, func(runtime.Frame) (bool, error) { return false, nil })
		if err != nil {
			return // stopping, or the response is gone
		}
		receipt, err := s.o.Service.GetResponse(ctx, p, fire.SessionID, fire.ResponseID)
		if err != nil {
			return
		}
		st, err := runtime.ParseReceiptState(receipt)
		if err != nil {
			return
		}
		switch st.Status {
		case runtime.StatusCompleted, runtime.StatusFailed, runtime.StatusCancelled, runtime.StatusDenied:
		default:
			return // not over (the follow ended with ctx)
		}
		fire.Outcome = st.Status
		s.o.OnFire(ctx, key.User, key.Schedule, fire)
	}()
}

// watchContext is the context of the watches: the scheduler's, which
// Close ends, never a request's (run-now); nil before Start.
func (s *Scheduler) watchContext(context.Context) context.Context {
	s.watchMu.Lock()
	defer s.watchMu.Unlock()
	return s.ctx
}
