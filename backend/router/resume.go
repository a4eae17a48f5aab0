package router

import (
	"context"
	"time"

	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/store"
)

// Resume points (runtime.Journal). The rung being asked is the turn's
// resume point: before a harness is asked (the chosen one, a rung of the
// ladder, the next harness or the house), the router records which, with
// the receipt so far. The harness itself sees the turn's journal scoped
// to it ("rung/<name>/"), so its own resume points (a model's steps, an
// a2a task, a relay item) work behind the router as they do alone.
//
// When the turn's replica is lost and another replica runs the turn
// again, the router asks the recorded rung again at once, without routing
// it again: the turn is not counted again against the daily caps, the
// harness is not admitted again by its breaker, and the rungs tried before
// stay on the receipt and are not asked again. If that rung does not
// answer either, the fallback goes on from it. The router's receipt is
// written once, by the attempt that ends the turn: an attempt that ends
// because the turn goes on on another replica writes none.

// rungKey names the rung being asked in the turn's journal.
const rungKey = "router/rung"

// recordedRung is what the resume point holds.
type recordedRung struct {
	// Name is the harness asked, Prefix the fallback line before its
	// answer ("" for none).
	Name   string `json:"name"`
	Prefix string `json:"prefix,omitempty"`
	// House: the house was asked (Prefixed: the name its fallback line
	// names, "" for a turn with no choice).
	House    bool   `json:"house,omitempty"`
	Prefixed string `json:"prefixed,omitempty"`
	// Failed is the harness whose failure led to this rung ("" when the
	// rung is the chosen harness itself).
	Failed string `json:"failed,omitempty"`
	// Receipt is the router's receipt so far (nil: a turn with no choice
	// has none), Start when the turn started, Waited the waits so far.
	Receipt *store.RouterReceipt `json:"receipt,omitempty"`
	Start   time.Time            `json:"start"`
	Waited  time.Duration        `json:"waited"`
}

// recordRung records that rung is about to be asked. An error ends the
// turn (it goes on on another replica, or its context ended).
func (t *routed) recordRung(ctx context.Context, rung recordedRung) error {
	if t.turn.Journal == nil {
		return nil
	}
	if t.rec.ResponseID != "" {
		rec := t.rec
		rec.Rungs = append([]store.RouterRung(nil), t.rec.Rungs...)
		rung.Receipt = &rec
	}
	rung.Start, rung.Waited, rung.Failed = t.start, t.waited, t.failed
	return t.turn.Journal.RecordJSON(ctx, rungKey, rung)
}

// recallRung is the rung an earlier attempt of the turn was asking, if any.
func recallRung(turn *runtime.Turn) (recordedRung, bool) {
	rung, ok := runtime.RecallJSON[recordedRung](turn.Journal, rungKey)
	if !ok || rung.Name == "" {
		return recordedRung{}, false
	}
	return rung, true
}

// rungJournal is the turn's journal as the harness name sees it.
func rungJournal(turn *runtime.Turn, name string) *runtime.Journal {
	return turn.Journal.Within("rung/" + name + "/")
}

// resume asks again the rung an earlier attempt was asking, and falls
// back from it as that attempt would have.
func (t *routed) resume(ctx context.Context, rung recordedRung) error {
	t.r.log.Info("router: asking again the harness an earlier attempt was asking", "response", t.turn.ResponseID,
		"harness", rung.Name, "attempt", t.turn.Attempt)
	if rung.Receipt == nil {
		return t.house(ctx, "") // a turn with no choice: no receipt
	}
	t.rec, t.start, t.waited, t.failed = *rung.Receipt, rung.Start, rung.Waited, rung.Failed
	defer t.writeReceipt(ctx)
	if rung.House {
		return t.house(ctx, rung.Prefixed)
	}
	// What check held for the rung went with the lost attempt: nothing
	// is held or settled again.
	if done, err := t.try(ctx, rung.Name, rung.Prefix, holds{}); done {
		return err
	}
	failed := rung.Failed
	if failed == "" {
		failed = rung.Name
		t.rec.Reason = t.rec.Rungs[len(t.rec.Rungs)-1].Reason
	}
	return t.fallBack(ctx, failed)
}

// tried reports whether a rung of the ladder was asked (or skipped)
// already: a resumed turn does not ask it again.
func (t *routed) tried(name string) bool {
	for _, r := range t.rec.Rungs {
		if r.Name == name {
			return true
		}
	}
	return false
}
