package router

import (
	"context"
	"errors"
	"fmt"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/runtime/store"
)

// Harness states on the owner's page.
const (
	StateReady       = "ready"
	StatePaused      = "paused"
	StateCoolingDown = "cooling_down"
)

// ErrInvalid is a change the owner asked for that config would refuse;
// ErrUnknownHarness names no harness.
var (
	ErrInvalid        = errors.New("router: invalid setting")
	ErrUnknownHarness = errors.New("router: no such harness")
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

// kind names a harness's backend.
func kind(h config.RouterHarness) string {
	switch {
	case h.Echo != nil:
		return "echo"
	case h.Exec != nil:
		return "exec"
	case h.Model != nil:
		return "model"
	case h.A2A != nil:
		return "a2a"
	}
	return "relay"
}

// Status reads the owner's page.
func (r *Router) Status(ctx context.Context) (Status, error) {
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
		TurnsToday: counts["turns"], VisitorTurnsToday: counts["visitor_turns"], Harnesses: []HarnessStatus{}}
	for _, name := range r.order {
		h := r.cfg.Harnesses[name]
		hs := HarnessStatus{Name: name, Kind: kind(h), Skills: append([]string{}, h.Skills...), State: StateReady,
			Allowed: s.isAllowed(name), CostTodayMicros: counts["cost:"+name]}
		st, err := r.st.RouterBreakerState(ctx, name, r.breakerPolicy(name), now)
		if err != nil {
			return Status{}, err
		}
		switch {
		case s.paused[name]:
			hs.State = StatePaused
		case st != store.RouterClosed:
			hs.State = StateCoolingDown
		}
		out.Harnesses = append(out.Harnesses, hs)
	}
	return out, nil
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
