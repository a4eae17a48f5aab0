package router

import (
	"context"
	"fmt"
	"time"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/store"
)

// Harness states on the owner's page.
const (
	StateReady       = "ready"
	StatePaused      = "paused"
	StateCoolingDown = "cooling_down"
	StateOffline     = "offline" // a relay harness whose outside agent is not connected
)

// ErrInvalid is a change the owner asked for that config would refuse
// (a runtime.ErrInvalid); ErrUnknownHarness names no harness (a
// runtime.ErrNotFound). The owner routes (routerapi) answer by those kinds.
var (
	ErrInvalid        = runtime.Errorf(runtime.ErrInvalid, "invalid_request", "router: invalid setting")
	ErrUnknownHarness = runtime.Errorf(runtime.ErrNotFound, "harness_not_found", "router: no such harness")
)

// HarnessStatus is one harness on the owner's page.
type HarnessStatus struct {
	Name            string   `json:"name"`
	Kind            string   `json:"kind"`
	Skills          []string `json:"skills"`
	State           string   `json:"state"`
	Allowed         bool     `json:"allowed"`
	CostTodayMicros int64    `json:"costTodayMicros"`
}

// Status is the owner's page: the harnesses, the settings in force and
// today's counts.
type Status struct {
	Harnesses         []HarnessStatus   `json:"harnesses"`
	House             string            `json:"house"`
	Choice            string            `json:"choice"`
	Turns             map[string]string `json:"turns"`
	Fallback          string            `json:"fallback"`
	PlanDailyTurns    int               `json:"planDailyTurns"`
	DailyTurns        *int              `json:"dailyTurns"`
	TurnsToday        int64             `json:"turnsToday"`
	VisitorTurnsToday int64             `json:"visitorTurnsToday"`
}

// Status reads the owner's page as user sees it: a relay harness is
// offline when no outside agent of user's would take their turn.
func (r *Router) Status(ctx context.Context, user string) (Status, error) {
	ov, err := r.st.RouterOverrides(ctx)
	if err != nil {
		return Status{}, err
	}
	now := r.now()
	counts, err := r.st.RouterCounts(ctx, now)
	if err != nil {
		return Status{}, err
	}
	s := r.effective(ov)
	out := Status{House: r.cfg.House, Choice: s.choice, Fallback: s.fallback, PlanDailyTurns: r.cfg.PlanTurns(),
		DailyTurns: ov.DailyTurns, Turns: map[string]string{"owner": s.ownerTurns, "visitor": s.visitorTurns},
		TurnsToday: counts["turns"], VisitorTurnsToday: counts[visitorTurnsCounter], Harnesses: []HarnessStatus{}}
	for _, name := range r.order {
		h := r.cfg.Harnesses[name]
		hs := HarnessStatus{Name: name, Kind: h.Backend().Kind(), Skills: append([]string{}, h.Skills...),
			Allowed: s.isAllowed(name), CostTodayMicros: counts[costCounter(name)]}
		if hs.State, err = r.state(ctx, name, s, user, now); err != nil {
			return Status{}, err
		}
		out.Harnesses = append(out.Harnesses, hs)
	}
	return out, nil
}

// state is a harness's state: paused by the owner, offline (a relay
// harness without its outside agent), cooling down (its breaker is not
// closed) or ready.
func (r *Router) state(ctx context.Context, name string, s settings, user string, now time.Time) (string, error) {
	if s.paused[name] {
		return StatePaused, nil
	}
	if h := r.cfg.Harnesses[name]; h.Relay != nil && r.relay != nil {
		connected, err := r.relay.Connected(ctx, *h.Relay, user)
		if err != nil {
			return "", err
		}
		if !connected {
			return StateOffline, nil
		}
	}
	st, err := r.st.RouterBreakerState(ctx, name, r.breakerPolicy(name), now)
	switch {
	case err != nil:
		return "", err
	case st != store.RouterClosed:
		return StateCoolingDown, nil
	}
	return StateReady, nil
}

// SetChoice saves the harness choice ("" for none) for every replica.
func (r *Router) SetChoice(ctx context.Context, choice string) error {
	if msg := config.RouterChoiceProblem(&r.cfg, choice); msg != "" {
		return fmt.Errorf("%w: choice %s", ErrInvalid, msg)
	}
	return r.st.SetRouterOverrides(ctx, store.RouterOverrides{Choice: &choice})
}

// SetTurns saves who answers owners' and visitors' turns (nil: as it is).
func (r *Router) SetTurns(ctx context.Context, owner, visitor *string) error {
	for _, v := range []*string{owner, visitor} {
		if v == nil {
			continue
		}
		if msg := config.RouterTurnProblem(&r.cfg, *v); msg != "" {
			return fmt.Errorf("%w: turns %s", ErrInvalid, msg)
		}
	}
	return r.st.SetRouterOverrides(ctx, store.RouterOverrides{OwnerTurns: owner, VisitorTurns: visitor})
}

// Apply saves the owner's settings.
func (r *Router) Apply(ctx context.Context, s Settings) error {
	o, err := r.overridesOf(s)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	return r.st.SetRouterOverrides(ctx, o)
}

// SetPaused pauses or resumes a harness.
func (r *Router) SetPaused(ctx context.Context, name string, paused bool) error {
	if _, ok := r.cfg.Harnesses[name]; !ok {
		return ErrUnknownHarness
	}
	return r.st.SetRouterOverrides(ctx, store.RouterOverrides{Paused: map[string]bool{name: paused}})
}

// Receipts reads a page of receipts, newest first.
func (r *Router) Receipts(ctx context.Context, cursor string, limit int) (store.RouterReceiptPage, error) {
	return r.st.ListRouterReceipts(ctx, cursor, limit, r.now())
}
