package router

import (
	"context"
	"time"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/budget"
)

// holds are what check took for one harness before it is asked: the
// turn's expected cost held against the harness's daily cost ceiling,
// and a visitor's turn held against the visitors' daily cap. Taking them
// before the turn, atomically against their limits, keeps concurrent
// turns on every replica within the limits; try settles them after.
type holds struct {
	cost    *budget.Hold
	visitor *budget.Hold
}

// release gives back everything held: the harness was not asked.
func (t *routed) release(ctx context.Context, name string, h holds) {
	sctx, cancel := storeCtx(ctx)
	defer cancel()
	for _, hold := range []*budget.Hold{h.cost, h.visitor} {
		if err := hold.Release(sctx); err != nil {
			t.r.log.Warn("router: could not give back a hold", "harness", name, "error", err)
		}
	}
}

// settle replaces the holds with what the asked harness really took: its
// cost (0 gives the whole hold back: refused, failed before any cost,
// cancelled), and the visitor's turn unless the harness refused it.
func (t *routed) settle(ctx context.Context, name string, h holds, spent int64, refused bool) {
	sctx, cancel := storeCtx(ctx)
	defer cancel()
	if err := h.cost.Settle(sctx, spent); err != nil {
		t.r.log.Warn("router: could not settle a harness's cost", "harness", name, "error", err)
	}
	if refused {
		if err := h.visitor.Release(sctx); err != nil {
			t.r.log.Warn("router: could not give back a visitor's turn", "harness", name, "error", err)
		}
	}
}

// counter is the router's day counter name as a budget.Counter.
func (r *Router) counter(name string) budget.Counter {
	return func(ctx context.Context, by, limit int64, now time.Time) (int64, bool, error) {
		return r.st.TakeRouterCount(ctx, name, by, limit, now)
	}
}

// visitorTurnsCounter counts the visitors' turns that reached a relay
// harness today.
const visitorTurnsCounter = "visitor_turns"

// costCounter is the day counter of a harness's cost.
func costCounter(name string) string { return "cost:" + name }

// expectedCost is what a turn of a priced harness is held for before it
// is asked: the most a turn can cost when it is set, else the price of a
// turn, and at least 1 micro-dollar (a harness priced by tokens alone
// with no maxTurnMicros is held for 1: its token cost shows only after
// the turn).
func expectedCost(h config.RouterHarness) int64 {
	return max(h.Pricing.MaxTurnMicros, h.Pricing.PerTurnMicros, 1)
}

// turnCost is what one harness's turn cost in micro-dollars: its tokens
// (rounded up), and its price per turn when it answered.
func turnCost(h config.RouterHarness, out outcome) int64 {
	p := h.Pricing
	micros := (int64(out.usage.InputTokens)*p.InputPerMTokMicros + int64(out.usage.OutputTokens)*p.OutputPerMTokMicros + 999_999) / 1_000_000
	if out.started {
		micros += p.PerTurnMicros
	}
	return micros
}
