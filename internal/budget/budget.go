// Package budget holds an amount against a daily limit before the work
// that spends it, and settles the hold with what the work really spent
// after it: reserve before, settle after. Two callers that each check a
// limit and add their cost afterwards can both pass it; a hold taken
// atomically against the limit cannot.
//
// The counter is any day counter with the store's "add within a limit"
// operation (store.Router's TakeRouterCount, store.Limits'
// AddUserDayCount): a Counter adapts one.
//
//	hold, ok, err := budget.Reserve(ctx, counter, expected, ceiling, now)
//	if err != nil || !ok { ... refuse the work ... }
//	spent := work()
//	err = hold.Settle(ctx, spent) // 0: the work was not paid; the hold comes back
package budget

import (
	"context"
	"errors"
	"sync"
	"time"
)

// Counter adds by (negative: gives back) to a counter of the UTC day of
// now when the sum stays at most limit (limit < 0: always), and returns
// the counter after the call and whether it added.
type Counter func(ctx context.Context, by, limit int64, now time.Time) (count int64, ok bool, err error)

// Hold is an amount held against a day's limit until it is settled.
type Hold struct {
	add    Counter
	amount int64
	at     time.Time // the hold's day: it is settled on that day's counter

	mu      sync.Mutex
	settled bool
}

// ErrSettled is returned when a hold is settled a second time.
var ErrSettled = errors.New("budget: the hold was already settled")

// Reserve holds amount (at least 0) against limit on the counter of
// now's day, atomically: ok is false, and nothing is held, when the
// counter plus amount would pass limit. A nil Hold is returned with ok
// false or an error.
func Reserve(ctx context.Context, add Counter, amount, limit int64, now time.Time) (*Hold, bool, error) {
	amount = max(amount, 0)
	_, ok, err := add(ctx, amount, limit, now)
	if err != nil || !ok {
		return nil, false, err
	}
	return &Hold{add: add, amount: amount, at: now}, true, nil
}

// Amount is what the hold holds.
func (h *Hold) Amount() int64 { return h.amount }

// Settle replaces the hold with what was really spent: it adds
// spent - held (negative: gives the rest back) to the counter of the
// day the hold was taken, whatever the limit (the money is spent). A
// spent of 0 gives the whole hold back. A hold is settled once; nil
// holds settle as nothing.
func (h *Hold) Settle(ctx context.Context, spent int64) error {
	if h == nil {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.settled {
		return ErrSettled
	}
	h.settled = true
	diff := max(spent, 0) - h.amount
	if diff == 0 {
		return nil
	}
	_, _, err := h.add(ctx, diff, -1, h.at)
	return err
}

// Release gives the whole hold back: the work was not done or not paid.
func (h *Hold) Release(ctx context.Context) error { return h.Settle(ctx, 0) }
