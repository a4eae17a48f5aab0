package config

import (
	"cmp"
	"maps"
	"slices"
	"strings"
)

// Defaults of the router backend.
const (
	DefaultRouterPlanDailyTurns    = 1000
	DefaultRouterRelayWaitMs       = 8000
	DefaultRouterWaitMs            = 30000
	MaxRouterWaitMs                = 600_000
	DefaultRouterBreakerFailures   = 3
	DefaultRouterBreakerWindow     = 60
	DefaultRouterBreakerCoolDown   = 120
	DefaultRouterFallbackLine      = "({harness} answered this one.)"
	RouterPerson                   = "person"
	RouterAuto                     = "auto"
	RouterTierPrefix               = "model-router:"
	RouterTurnChoice               = "choice"
	RouterTurnHouse                = "house"
	RouterTurnExpertise            = "expertise"
	RouterFallbackHouse            = "house"
	RouterFallbackNextHarness      = "next_harness"
	RouterFallbackTellMe           = "tell_me"
	DefaultRouterFallback          = RouterFallbackHouse
	DefaultRouterOwnerTurns        = RouterTurnChoice
	DefaultRouterVisitorTurns      = RouterTurnHouse
	routerHarnessNameMaxCharacters = 32
)

// RouterBackend is spec.backend.router: several named harnesses behind one
// agent. Each turn is routed to the chosen harness with a bounded wait,
// falls back when the harness fails, and leaves one text-free receipt.
type RouterBackend struct {
	// Harnesses are the named harnesses, each exactly one backend section
	// (echo, exec, model, a2a or relay) with the router's own settings.
	// Decoding keeps the order they are declared in (see DeclaredOrder).
	Harnesses RouterHarnesses `yaml:"harnesses"`
	// Order, when set, overrides the declared order of the harnesses for
	// "auto" ties and next_harness; it must name every harness once.
	Order []string `yaml:"order"`
	// House answers when nothing else should or can (required).
	House string `yaml:"house"`
	// Choice is a harness name, auto or model-router:<tier>; empty is no
	// choice (the house answers and no receipt is written).
	Choice string `yaml:"choice"`
	// Tiers map a model-router tier to a harness.
	Tiers map[string]string `yaml:"tiers"`
	// Turns say who answers each kind of turn (owner, visitor): choice,
	// house, a harness name or expertise.
	Turns RouterTurns `yaml:"turns"`
	// Fallback is what happens when the chosen harness fails: house
	// (default), next_harness or tell_me.
	Fallback string `yaml:"fallback"`
	// Ladder is an optional fallback ladder of harness names; person is
	// always its last rung (added when missing).
	Ladder []string `yaml:"ladder"`
	// PlanDailyTurns is the operator's allowance of routed turns per UTC
	// day (default 1000; 0 routes nothing).
	PlanDailyTurns *int `yaml:"planDailyTurns"`
	// Breaker opens for a harness after Failures failures within
	// WindowSeconds, for CoolDownSeconds.
	Breaker RouterBreaker `yaml:"breaker"`
	// Visitors let users other than the owner reach relay harnesses.
	Visitors RouterVisitors `yaml:"visitors"`
	// FallbackLine is the first line of an answer served by a fallback;
	// {harness} is replaced by who answered (default
	// "({harness} answered this one.)").
	FallbackLine string `yaml:"fallbackLine"`
}

// RouterHarnesses are a router's harnesses by name. The decoder of
// config.yaml sets each harness's Place, so that the order of the
// harnesses: mapping survives decoding.
type RouterHarnesses map[string]RouterHarness

// Names lists the harness names in their declared order: by Place, then
// by name (harnesses built in Go have no Place, so they go by name).
func (hs RouterHarnesses) Names() []string {
	names := slices.Collect(maps.Keys(hs))
	slices.SortFunc(names, func(a, b string) int {
		return cmp.Or(cmp.Compare(hs[a].Place, hs[b].Place), strings.Compare(a, b))
	})
	return names
}

// DeclaredOrder is the harnesses' order for "auto" ties and next_harness:
// Order when it is set, else the order of the harnesses: mapping.
func (r RouterBackend) DeclaredOrder() []string {
	if len(r.Order) > 0 {
		return slices.Clone(r.Order)
	}
	return r.Harnesses.Names()
}

// RouterHarness is one harness: one backend section and how the router
// treats it.
type RouterHarness struct {
	Echo  *EchoBackend  `yaml:"echo"`
	Exec  *ExecBackend  `yaml:"exec"`
	Model *ModelBackend `yaml:"model"`
	A2A   *A2ABackend   `yaml:"a2a"`
	Relay *RelayBackend `yaml:"relay"`
	// WaitMs bounds the wait for the harness's answer to start (default
	// 8000 for a relay, 30000 otherwise; at most 600000).
	WaitMs int `yaml:"waitMs"`
	// Skills are what the harness is good at: auto and expertise match the
	// words of a turn against them.
	Skills []string `yaml:"skills"`
	// Pricing prices the harness's exact usage in micro-dollars.
	Pricing RouterPricing `yaml:"pricing"`
	// DailyCostCeilingMicros bounds a priced harness's cost per UTC day in
	// micro-dollars; 0 (the default for a priced harness) means closed.
	// Unpriced harnesses cost nothing and have no ceiling.
	DailyCostCeilingMicros int64 `yaml:"dailyCostCeilingMicros"`
	// NeedsConsent makes a visitor's turn reach the harness only when the
	// visitor consented (metadata "routerConsent": true).
	NeedsConsent bool `yaml:"needsConsent"`
	// Place is the harness's place under harnesses: (1 for the first), set
	// when config.yaml is decoded; 0 for a harness built in Go.
	Place int `yaml:"-"`
}

// RouterPricing is a harness's price in micro-dollars: per million
// tokens of its exact usage, and per turn it answers.
type RouterPricing struct {
	InputPerMTokMicros  int64 `yaml:"inputPerMTokMicros"`
	OutputPerMTokMicros int64 `yaml:"outputPerMTokMicros"`
	// PerTurnMicros is the price of each turn the harness answers, on top
	// of its tokens.
	PerTurnMicros int64 `yaml:"perTurnMicros"`
	// MaxTurnMicros is the most one turn can cost. The router holds it
	// against the daily cost ceiling before asking the harness and settles
	// the real cost after; 0 holds PerTurnMicros (at least 1).
	MaxTurnMicros int64 `yaml:"maxTurnMicros"`
}

// RouterTurns say who answers each kind of turn.
type RouterTurns struct {
	Owner   string `yaml:"owner"`   // default choice
	Visitor string `yaml:"visitor"` // default house
}

// RouterBreaker is the breaker of every harness.
type RouterBreaker struct {
	Failures        int `yaml:"failures"`        // default 3
	WindowSeconds   int `yaml:"windowSeconds"`   // default 60
	CoolDownSeconds int `yaml:"coolDownSeconds"` // default 120
}

// RouterVisitors let visitors reach relay harnesses.
type RouterVisitors struct {
	Enabled    bool `yaml:"enabled"`
	DailyTurns int  `yaml:"dailyTurns"` // visitors' routed turns a UTC day; 0 keeps them out
}

// VisitorsOn reports whether visitors' turns may reach the router's relay
// harnesses: visitors are enabled with a daily cap above 0.
func (r RouterBackend) VisitorsOn() bool { return r.Visitors.Enabled && r.Visitors.DailyTurns > 0 }

// Priced reports whether the harness has a price (and so a cost ceiling).
func (h RouterHarness) Priced() bool {
	p := h.Pricing
	return p.InputPerMTokMicros > 0 || p.OutputPerMTokMicros > 0 || p.PerTurnMicros > 0 || p.MaxTurnMicros > 0
}

// Backend is the harness's backend section as a spec.backend.
func (h RouterHarness) Backend() Backend {
	return Backend{Echo: h.Echo, Exec: h.Exec, Model: h.Model, A2A: h.A2A, Relay: h.Relay}
}

// Wait is the harness's waitMs with its default.
func (h RouterHarness) Wait() int {
	switch {
	case h.WaitMs > 0:
		return h.WaitMs
	case h.Relay != nil:
		return DefaultRouterRelayWaitMs
	}
	return DefaultRouterWaitMs
}

// PlanTurns is planDailyTurns with its default.
func (r RouterBackend) PlanTurns() int {
	if r.PlanDailyTurns == nil {
		return DefaultRouterPlanDailyTurns
	}
	return *r.PlanDailyTurns
}

// WithDefaults returns the breaker with its defaults.
func (b RouterBreaker) WithDefaults() RouterBreaker {
	b.Failures = cmp.Or(b.Failures, DefaultRouterBreakerFailures)
	b.WindowSeconds = cmp.Or(b.WindowSeconds, DefaultRouterBreakerWindow)
	b.CoolDownSeconds = cmp.Or(b.CoolDownSeconds, DefaultRouterBreakerCoolDown)
	return b
}

// WithDefaults returns the turns map with its defaults.
func (t RouterTurns) WithDefaults() RouterTurns {
	t.Owner = cmp.Or(t.Owner, DefaultRouterOwnerTurns)
	t.Visitor = cmp.Or(t.Visitor, DefaultRouterVisitorTurns)
	return t
}
