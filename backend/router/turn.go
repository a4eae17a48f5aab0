package router

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/store"
)

// routed is one turn being routed.
type routed struct {
	r       *Router
	turn    *runtime.Turn // redacted for a visitor
	emit    runtime.Emit
	visitor bool
	consent bool
	s       settings
	start   time.Time
	rec     store.RouterReceipt
	waited  time.Duration
	// failed is the harness whose failure the fallback answers for ("":
	// none yet), kept with the resume point (resume.go).
	failed string
}

// Run routes one turn.
func (r *Router) Run(ctx context.Context, turn *runtime.Turn, emit runtime.Emit) error {
	t := &routed{r: r, turn: turn, emit: emit, visitor: !r.isOwner(turn.UserID), start: r.now()}
	if t.visitor {
		t.turn = redactedTurn(turn)
		t.consent = consented(turn.Metadata)
	}
	ov, err := r.st.RouterOverrides(ctx)
	if err != nil {
		r.log.Warn("router: the store did not answer; the house answers", "error", err)
	}
	t.s = r.effective(ov)
	if rung, ok := recallRung(turn); ok && r.harnesses[rung.Name] != nil {
		return t.resume(ctx, rung) // an earlier attempt was asking it (resume.go)
	}
	choice, target, reason := t.resolve()
	if choice == "" {
		return t.house(ctx, "") // no choice: as if there were no router, no receipt
	}
	t.rec = store.RouterReceipt{ResponseID: turn.ResponseID, SessionID: turn.SessionID, User: turn.UserID,
		Visitor: t.visitor, Choice: choice}
	defer t.writeReceipt(ctx)
	if reason == "" {
		reason = t.takeTurn(ctx)
	}
	if reason != "" { // the tier, the caps: the house answers
		t.rec.Reason = reason
		return t.house(ctx, t.r.cfg.House)
	}
	var held holds
	held, t.rec.Reason = t.check(ctx, target, false)
	if t.rec.Reason == "" {
		var done bool
		if done, err = t.try(ctx, target, "", held); done {
			return err
		}
		t.rec.Reason = t.rec.Rungs[len(t.rec.Rungs)-1].Reason
	} else {
		t.rec.Rungs = append(t.rec.Rungs, store.RouterRung{Name: target, Reason: t.rec.Reason})
	}
	return t.fallBack(ctx, target)
}

// consented reads the visitor's consent from the turn's metadata.
func consented(metadata json.RawMessage) bool {
	var m struct {
		Consent bool `json:"routerConsent"`
	}
	return json.Unmarshal(metadata, &m) == nil && m.Consent
}

// resolve reads who should answer: the choice written on the receipt
// ("" for no choice), the harness, and a reason when the choice cannot be
// followed.
func (t *routed) resolve() (choice, target, reason string) {
	kind := t.s.ownerTurns
	if t.visitor {
		kind = t.s.visitorTurns
	}
	usable := func(name string) bool { return t.s.isAllowed(name) && !t.s.paused[name] }
	switch kind {
	case config.RouterTurnHouse:
		return "", "", ""
	case config.RouterTurnExpertise:
		return config.RouterTurnExpertise, t.r.bySkills(t.turn.Input, usable), ""
	case config.RouterTurnChoice:
	default:
		if _, ok := t.r.cfg.Harnesses[kind]; ok {
			return kind, kind, ""
		}
		return "", "", "" // unparsable: no choice
	}
	c := t.s.choice
	if _, ok := t.r.cfg.Harnesses[c]; ok {
		return c, c, ""
	}
	if c == config.RouterAuto {
		return c, t.r.bySkills(t.turn.Input, usable), ""
	}
	if tier, ok := strings.CutPrefix(c, config.RouterTierPrefix); ok && tier != "" {
		if name, ok := t.r.cfg.Tiers[tier]; ok {
			if _, ok := t.r.cfg.Harnesses[name]; ok {
				return c, name, ""
			}
		}
		return c, "", ReasonTierUnavailable
	}
	return "", "", ""
}

// takeTurn counts the routed turn against the tightest of the plan's and
// the owner's daily caps.
func (t *routed) takeTurn(ctx context.Context) string {
	limit, reason := t.r.cfg.PlanTurns(), ReasonPlanDailyCap
	if t.s.ownerDaily >= 0 && t.s.ownerDaily < limit {
		limit, reason = t.s.ownerDaily, ReasonOwnerDailyCap
	}
	_, ok, err := t.r.st.TakeRouterCount(ctx, "turns", 1, int64(limit), t.r.now())
	switch {
	case err != nil:
		t.r.log.Warn("router: the store did not count the turn; the house answers", "error", err)
		return ReasonStoreUnavailable
	case !ok:
		return reason
	}
	return ""
}

// writeReceipt keeps the turn's receipt, unless the turn goes on on
// another replica (its attempt there writes it).
func (t *routed) writeReceipt(ctx context.Context) {
	if runtime.ContinuedElsewhere(ctx) {
		return
	}
	t.rec.At = t.start.UTC()
	t.rec.TotalMs = t.r.now().Sub(t.start).Milliseconds()
	t.rec.WaitMs = t.waited.Milliseconds()
	sctx, cancel := storeCtx(ctx)
	defer cancel()
	if err := t.r.st.AddRouterReceipt(sctx, t.rec); err != nil {
		t.r.log.Warn("router: could not keep a receipt", "response", t.rec.ResponseID, "error", err)
	}
}
