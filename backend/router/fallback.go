package router

import (
	"context"
	"strings"
	"time"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/budget"
	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/store"
)

// check says why a harness may not be asked now ("" when it may). On the
// ladder, pauses and switches are switch_off and a spent ceiling is
// no_ceiling. When it may, it returns what it holds for the turn (the
// expected cost, the visitor's turn), which try settles; when it may
// not, it holds nothing.
func (t *routed) check(ctx context.Context, name string, ladder bool) (holds, string) {
	if name == "" {
		return holds{}, ReasonNotAllowed // auto or expertise found no usable harness
	}
	h := t.r.cfg.Harnesses[name]
	skip := func(reason, onLadder string) string {
		if ladder {
			return onLadder
		}
		return reason
	}
	switch {
	case !t.s.isAllowed(name):
		return holds{}, skip(ReasonNotAllowed, SkipSwitchOff)
	case t.s.paused[name]:
		return holds{}, skip(ReasonPaused, SkipSwitchOff)
	case t.visitor && h.Relay != nil && !t.r.cfg.VisitorsOn():
		return holds{}, skip(ReasonVisitorsOff, SkipSwitchOff)
	case t.visitor && h.NeedsConsent && !t.consent:
		return holds{}, ReasonNoConsent
	}
	if reason := t.offline(ctx, h); reason != "" {
		return holds{}, reason
	}
	var held holds
	refuse := func(reason string) (holds, string) {
		t.release(ctx, name, held)
		return holds{}, reason
	}
	now := t.r.now()
	if h.Priced() {
		if h.DailyCostCeilingMicros <= 0 {
			return holds{}, skip(ReasonCostCeiling, SkipNoCeiling)
		}
		hold, ok, err := budget.Reserve(ctx, t.r.counter(costCounter(name)), expectedCost(h), h.DailyCostCeilingMicros, now)
		switch {
		case err != nil:
			return holds{}, ReasonStoreUnavailable
		case !ok:
			return holds{}, skip(ReasonCostCeiling, SkipNoCeiling)
		}
		held.cost = hold
	}
	if t.visitor && h.Relay != nil {
		hold, ok, err := budget.Reserve(ctx, t.r.counter(visitorTurnsCounter), 1, int64(t.r.cfg.Visitors.DailyTurns), now)
		switch {
		case err != nil:
			return refuse(ReasonStoreUnavailable)
		case !ok:
			return refuse(ReasonVisitorDailyCap)
		}
		held.visitor = hold
	}
	ok, _, err := t.r.st.AdmitRouterHarness(ctx, name, t.r.breakerPolicy(name), now)
	switch {
	case err != nil:
		return refuse(ReasonStoreUnavailable)
	case !ok:
		return refuse(ReasonCoolingDown)
	}
	return held, ""
}

// offline says harness_offline for a relay harness whose outside agent
// is not connected: it is skipped before its visitor cap or its breaker
// counts anything (offline is not a failure).
func (t *routed) offline(ctx context.Context, h config.RouterHarness) string {
	if h.Relay == nil || t.r.relay == nil {
		return ""
	}
	connected, err := t.r.relay.Connected(ctx, *h.Relay, t.turn.UserID)
	switch {
	case err != nil:
		return ReasonStoreUnavailable
	case !connected:
		return ReasonOffline
	}
	return ""
}

// try asks an admitted harness within its wait, settles what check held
// for it with its cost, tells its breaker how it went and notes the rung.
// A harness that refused the turn is not a failure: its breaker hears
// nothing and a visitor's turn is given back. done: the turn is over
// (answered, or failed after its answer started, or cancelled).
func (t *routed) try(ctx context.Context, name, prefix string, held holds) (done bool, err error) {
	if err := t.recordRung(ctx, recordedRung{Name: name, Prefix: prefix}); err != nil {
		t.settle(ctx, name, held, 0, true)
		return true, err
	}
	wait := time.Duration(t.r.cfg.Harnesses[name].Wait()) * time.Millisecond
	out := t.ask(ctx, name, wait, prefix)
	refused := isRefusal(out.reason)
	t.settle(ctx, name, held, t.account(name, out), refused)
	if !refused && (ctx.Err() == nil || out.reason != "") {
		sctx, cancel := storeCtx(ctx)
		_, rerr := t.r.st.ReportRouterHarness(sctx, name, t.r.breakerPolicy(name), out.reason == "", t.r.now())
		cancel()
		if rerr != nil {
			t.r.log.Warn("router: could not report to the breaker", "harness", name, "error", rerr)
		}
	}
	t.rec.Rungs = append(t.rec.Rungs, store.RouterRung{Name: name, Reason: out.reason})
	if out.started {
		t.rec.AnsweredBy = name
	}
	if out.started || ctx.Err() != nil {
		if out.err == nil && ctx.Err() != nil {
			out.err = ctx.Err()
		}
		return true, out.err
	}
	return false, nil
}

// account adds the wait of one harness's turn and its cost to the
// receipt, and returns the cost.
func (t *routed) account(name string, out outcome) int64 {
	if t.rec.AnsweredBy == "" {
		t.waited += out.waited
	}
	micros := turnCost(t.r.cfg.Harnesses[name], out)
	t.rec.CostMicros += micros
	return micros
}

// fallBack answers after the chosen harness could not: the ladder when
// there is one, else the fallback.
func (t *routed) fallBack(ctx context.Context, failed string) error {
	t.failed = failed
	if t.r.ladder != nil {
		for _, rung := range t.r.ladder {
			if rung == failed || t.tried(rung) {
				continue
			}
			if rung == config.RouterPerson {
				return t.person(ctx)
			}
			held, reason := t.check(ctx, rung, true)
			if reason != "" {
				t.rec.Rungs = append(t.rec.Rungs, store.RouterRung{Name: rung, Reason: reason})
				continue
			}
			if done, err := t.try(ctx, rung, t.line(rung), held); done {
				return err
			}
		}
	}
	switch t.s.fallback {
	case config.RouterFallbackTellMe:
		return t.tellMe(failed)
	case config.RouterFallbackNextHarness:
		if next := t.next(failed); next != "" {
			if held, reason := t.check(ctx, next, false); reason != "" {
				t.rec.Rungs = append(t.rec.Rungs, store.RouterRung{Name: next, Reason: reason})
			} else if done, err := t.try(ctx, next, t.line(next), held); done {
				return err
			}
		}
	}
	if failed == t.r.cfg.House {
		t.rec.AnsweredBy = AnsweredByNobody
		return runtime.Errorf(runtime.ErrAgentFailed, "router_house_failed", "The house harness %q could not answer", failed)
	}
	return t.house(ctx, t.r.cfg.House)
}

// next is the harness after failed in the declared order that the owner
// allows and did not pause, other than the house; "" when none.
func (t *routed) next(failed string) string {
	at := -1
	for i, name := range t.r.order {
		if name == failed {
			at = i
		}
	}
	for i := 1; i < len(t.r.order); i++ {
		name := t.r.order[(at+i+len(t.r.order))%len(t.r.order)]
		if name != failed && name != t.r.cfg.House && t.s.isAllowed(name) && !t.s.paused[name] {
			return name
		}
	}
	return ""
}

// line is the first line of an answer a fallback served.
func (t *routed) line(answeredBy string) string {
	tpl := t.r.cfg.FallbackLine
	if tpl == "" {
		tpl = config.DefaultRouterFallbackLine
	}
	return strings.ReplaceAll(tpl, "{harness}", answeredBy)
}

// house lets the house answer, without a wait of its own. prefixed names
// the house in a fallback line ("" for none: a turn with no choice).
func (t *routed) house(ctx context.Context, prefixed string) error {
	name, prefix := t.r.cfg.House, ""
	if prefixed != "" {
		prefix = t.line(name)
	}
	if err := t.recordRung(ctx, recordedRung{Name: name, Prefix: prefix, House: true, Prefixed: prefixed}); err != nil {
		return err
	}
	out := t.ask(ctx, name, 0, prefix)
	if prefixed == "" {
		return out.cause
	}
	if micros := t.account(name, out); micros > 0 {
		// The house is asked without a hold: its cost is counted as it is.
		sctx, cancel := storeCtx(ctx)
		if _, _, err := t.r.st.TakeRouterCount(sctx, costCounter(name), micros, -1, t.r.now()); err != nil {
			t.r.log.Warn("router: could not count a harness's cost", "harness", name, "error", err)
		}
		cancel()
	}
	t.rec.Rungs = append(t.rec.Rungs, store.RouterRung{Name: name, Reason: out.reason})
	if out.started {
		t.rec.AnsweredBy = name
	} else {
		t.rec.AnsweredBy = AnsweredByNobody
	}
	if out.err != nil {
		return out.err
	}
	return out.cause
}

// tellMe says plainly, in one sentence, that the chosen harness could
// not answer and why.
func (t *routed) tellMe(failed string) error {
	why := sentences[t.rec.Reason]
	if why == "" {
		why = "it could not be reached"
	}
	who := failed
	if who == "" {
		who = "The harness I would ask"
	}
	t.rec.AnsweredBy = AnsweredByTellMe
	return t.emit(runtime.Event{Type: runtime.EventTextDelta, Delta: who + " could not answer this time: " + why + "."})
}

// person ends the turn with a hand-off: a person will follow up, and the
// owner's feed gets the item.
func (t *routed) person(ctx context.Context) error {
	t.rec.Rungs = append(t.rec.Rungs, store.RouterRung{Name: config.RouterPerson})
	t.rec.AnsweredBy = AnsweredByPerson
	if t.r.relay != nil {
		sctx, cancel := storeCtx(ctx)
		err := t.r.relay.HandOff(sctx, t.turn.UserID, t.turn.ResponseID, t.turn.SessionID)
		cancel()
		if err != nil {
			t.r.log.Warn("router: the hand-off did not reach the owner's feed", "response", t.turn.ResponseID, "error", err)
		}
	}
	return t.emit(runtime.Event{Type: runtime.EventTextDelta, Delta: t.line(config.RouterPerson) + "\nA person will follow up on this soon."})
}
