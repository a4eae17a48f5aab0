package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/harnest/harnest/store"
)

// Recording a response's final step. The store may fail for a while (Redis
// restarting or paused): the caller is told at once, and the replica keeps
// trying to record the same step until the store answers, so the receipt
// becomes the real outcome and no accepted answer is lost. A final receipt
// that is already there (written by a sweeper that took this replica for
// dead) stands.

// recordTimeout bounds a read or write of the receipt outside the final
// step (the store bounds each call too).
const recordTimeout = 10 * time.Second

// record commits the final step once, whoever waits for it (the store
// bounds the call in time: no context deadline of its own, which would cost
// a timer and a context on every turn); c keeps its events for a retry.
func (r *Response) record(c *store.Commit) error {
	return r.commit(context.Background(), c)
}

// recordUntilStored retries a final step that the store did not take, with
// backoff, until the store answers or the service halts (its shutdown grace
// is over). It returns the last error.
func (r *Response) recordUntilStored(c *store.Commit) error {
	wait := 100 * time.Millisecond
	for {
		select {
		case <-r.svc.halt:
			return errors.New("runtime: the service stopped before the store took the final step")
		case <-time.After(wait):
		}
		wait = min(2*wait, 2*time.Second)
		err := r.record(c)
		if err == nil || errors.Is(err, store.ErrLeaseLost) || errors.Is(err, store.ErrReceiptFinal) || errors.Is(err, store.ErrFenced) {
			if err == nil {
				r.svc.log.Info("recorded response after the store came back", "responseId", r.ID)
			}
			return err
		}
	}
}

// replaceReceipt records a receipt on its own (not a full step), unless the
// receipt is already final.
func (r *Response) replaceReceipt(body []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), recordTimeout)
	defer cancel()
	return r.svc.store.ReplaceReceipt(ctx, r.turn.UserID, r.SessionID, r.ID, r.epoch, body)
}

// storedOutcome is the outcome told by the receipt in the store, when it
// became final without this replica.
func (r *Response) storedOutcome() (*Error, Envelope, []byte) {
	ctx, cancel := context.WithTimeout(context.Background(), recordTimeout)
	defer cancel()
	body, _, err := r.svc.store.Receipt(ctx, r.turn.UserID, r.SessionID, r.ID)
	var env Envelope
	if err != nil || json.Unmarshal(body, &env) != nil {
		return r.svc.storeFailure(errors.Join(err, errors.New("runtime: unreadable receipt"))).(*Error), env, body
	}
	if env.Status == StatusCompleted {
		return nil, env, body
	}
	code := CodeInvocationFailed
	if env.Error != nil {
		code = env.Error.Code
	}
	return &Error{Kind: ErrAgentFailed, Code: code, Detail: "The response was already recorded as " + env.Status}, env, body
}
