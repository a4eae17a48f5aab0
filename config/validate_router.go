package config

import (
	"regexp"
	"slices"
	"strings"
)

// routerHarnessNamePattern is what a harness may be called: it appears in
// receipts, owner routes (/owner/router/harnesses/{name}) and the feed.
var routerHarnessNamePattern = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,31}$`)

// routerReservedNames are words of the router's own settings.
var routerReservedNames = []string{RouterPerson, RouterAuto, RouterTurnChoice, RouterTurnHouse, RouterTurnExpertise}

// router checks spec.backend.router.
func (v *validator) router(r *RouterBackend) {
	const at = "spec.backend.router"
	if len(r.Harnesses) == 0 {
		v.problem(at+".harnesses", "required; name at least one harness, such as `quick: {echo: {}}`")
		return
	}
	for _, name := range r.Harnesses.Names() {
		v.routerHarness(joinPath(at+".harnesses", name), name, r.Harnesses[name])
	}
	known := func(name string) bool { _, ok := r.Harnesses[name]; return ok }
	switch {
	case r.House == "":
		v.problem(at+".house", "required; name the harness that answers when nothing else should or can")
	case !known(r.House):
		v.problem(at+".house", "names no harness; use one of %s", harnessNames(r))
	}
	if msg := RouterChoiceProblem(r, r.Choice); msg != "" {
		v.problem(at+".choice", "%s", msg)
	}
	for tier, name := range r.Tiers {
		if !known(name) {
			v.problem(joinPath(at+".tiers", tier), "names no harness; use one of %s", harnessNames(r))
		}
	}
	for path, value := range map[string]string{at + ".turns.owner": r.Turns.Owner, at + ".turns.visitor": r.Turns.Visitor} {
		if msg := RouterTurnProblem(r, value); value != "" && msg != "" {
			v.problem(path, "%s", msg)
		}
	}
	if msg := RouterFallbackProblem(r.Fallback); r.Fallback != "" && msg != "" {
		v.problem(at+".fallback", "%s", msg)
	}
	v.routerLadder(at+".ladder", r)
	v.routerOrder(at+".order", r)
	if r.PlanDailyTurns != nil && *r.PlanDailyTurns < 0 {
		v.problem(at+".planDailyTurns", "must be 0 (no routed turns) or more")
	}
	b := r.Breaker
	if b.Failures < 0 || b.Failures > 1000 {
		v.problem(at+".breaker.failures", "must be between 1 and 1000 (0 means %d)", DefaultRouterBreakerFailures)
	}
	if b.WindowSeconds < 0 || b.WindowSeconds > 86400 {
		v.problem(at+".breaker.windowSeconds", "must be between 1 and 86400 (0 means %d)", DefaultRouterBreakerWindow)
	}
	if b.CoolDownSeconds < 0 || b.CoolDownSeconds > 86400 {
		v.problem(at+".breaker.coolDownSeconds", "must be between 1 and 86400 (0 means %d)", DefaultRouterBreakerCoolDown)
	}
	if r.Visitors.DailyTurns < 0 {
		v.problem(at+".visitors.dailyTurns", "must be 0 (visitors stay out) or more")
	}
	if l := r.FallbackLine; len(l) > 200 || strings.ContainsAny(l, "\r\n") {
		v.problem(at+".fallbackLine", "must be one line of at most 200 characters, such as %q", DefaultRouterFallbackLine)
	}
}

// routerHarness checks one harness.
func (v *validator) routerHarness(path, name string, h RouterHarness) {
	if !routerHarnessNamePattern.MatchString(name) || slices.Contains(routerReservedNames, name) {
		v.problem(path, "a harness name is a lowercase letter, then up to 31 lowercase letters, digits, '-' or '_', and not one of %s", strings.Join(routerReservedNames, ", "))
	}
	n := 0
	for _, set := range []bool{h.Echo != nil, h.Exec != nil, h.Model != nil, h.A2A != nil, h.Relay != nil} {
		if set {
			n++
		}
	}
	if n != 1 {
		v.problem(path, "set exactly one backend of echo, exec, model, a2a and relay, found %d", n)
	}
	switch {
	case h.Echo != nil && (h.Echo.DelayMs < 0 || h.Echo.DelayMs > maxEchoDelayMs):
		v.problem(path+".echo.delayMs", "must be between 0 and %d", maxEchoDelayMs)
	case h.Exec != nil && len(h.Exec.Command) == 0:
		v.problem(path+".exec.command", `required; give the program and its arguments as a list, such as ["./agent.sh"]`)
	case h.Exec != nil && h.Exec.Mode != "" && h.Exec.Mode != "turn" && h.Exec.Mode != "worker":
		v.problem(path+".exec.mode", "must be turn or worker")
	case h.Model != nil && (strings.TrimSpace(h.Model.BaseURL) == "" || strings.TrimSpace(h.Model.Model) == ""):
		v.problem(path+".model", "needs baseUrl and model, such as {baseUrl: http://127.0.0.1:11434/v1, model: qwen3:8b}")
	case h.A2A != nil && strings.TrimSpace(h.A2A.URL) == "":
		v.problem(path+".a2a.url", "required; give the remote agent's card host or card URL")
	case h.Relay != nil && (h.Relay.DeadlineSeconds < 0 || h.Relay.DeadlineSeconds > 60):
		v.problem(path+".relay.deadlineSeconds", "must be between 1 and 60 (0 means 60)")
	}
	if h.WaitMs < 0 || h.WaitMs > MaxRouterWaitMs {
		v.problem(path+".waitMs", "must be between 1 and %d milliseconds (0 means the default)", MaxRouterWaitMs)
	}
	for i, s := range h.Skills {
		if strings.TrimSpace(s) == "" || len(s) > 64 {
			v.problem(indexPath(path+".skills", i), "a skill is a word or two of at most 64 characters, such as code")
		}
	}
	if h.Pricing.InputPerMTokMicros < 0 || h.Pricing.OutputPerMTokMicros < 0 {
		v.problem(path+".pricing", "prices must be 0 or more micro-dollars per million tokens")
	}
	if h.Pricing.PerTurnMicros < 0 || h.Pricing.MaxTurnMicros < 0 {
		v.problem(path+".pricing", "perTurnMicros and maxTurnMicros must be 0 or more micro-dollars")
	} else if m := h.Pricing.MaxTurnMicros; m > 0 && m < h.Pricing.PerTurnMicros {
		v.problem(path+".pricing.maxTurnMicros", "must be at least perTurnMicros (%d): it is the most one turn can cost", h.Pricing.PerTurnMicros)
	}
	if h.DailyCostCeilingMicros < 0 {
		v.problem(path+".dailyCostCeilingMicros", "must be 0 (closed) or more micro-dollars")
	}
}

// routerLadder checks the fallback ladder: harnesses once each, person
// last.
func (v *validator) routerLadder(path string, r *RouterBackend) {
	seen := map[string]bool{}
	for i, rung := range r.Ladder {
		p := indexPath(path, i)
		_, isHarness := r.Harnesses[rung]
		switch {
		case rung == RouterPerson && i != len(r.Ladder)-1:
			v.problem(p, "person is always the ladder's last rung; move it to the end")
		case rung != RouterPerson && !isHarness:
			v.problem(p, "names no harness; use one of %s, or person", harnessNames(r))
		case seen[rung]:
			v.problem(p, "appears twice; keep each rung once")
		}
		seen[rung] = true
	}
}

// routerOrder checks the declared order: every harness once.
func (v *validator) routerOrder(path string, r *RouterBackend) {
	if len(r.Order) == 0 {
		return
	}
	seen := map[string]bool{}
	for i, name := range r.Order {
		if _, ok := r.Harnesses[name]; !ok || seen[name] {
			v.problem(indexPath(path, i), "must name each harness once; use %s", harnessNames(r))
		}
		seen[name] = true
	}
	if len(seen) != len(r.Harnesses) {
		v.problem(path, "must list every harness; use %s", harnessNames(r))
	}
}

// RouterChoiceProblem says what is wrong with a harness choice, or "" when
// it is one the router parses: empty (no choice), a harness name, auto or
// model-router:<tier> (a tier missing from tiers is not a problem here: it
// is the turn's reason router_tier_unavailable).
func RouterChoiceProblem(r *RouterBackend, choice string) string {
	if _, ok := r.Harnesses[choice]; ok || choice == "" || choice == RouterAuto {
		return ""
	}
	if tier, ok := strings.CutPrefix(choice, RouterTierPrefix); ok && tier != "" {
		return ""
	}
	return "must be a harness name (" + harnessNames(r) + "), auto or model-router:<tier>"
}

// RouterTurnProblem says what is wrong with who answers a kind of turn,
// or "".
func RouterTurnProblem(r *RouterBackend, value string) string {
	if _, ok := r.Harnesses[value]; ok {
		return ""
	}
	switch value {
	case RouterTurnChoice, RouterTurnHouse, RouterTurnExpertise:
		return ""
	}
	return "must be choice, house, expertise or a harness name (" + harnessNames(r) + ")"
}

// RouterFallbackProblem says what is wrong with a fallback, or "".
func RouterFallbackProblem(value string) string {
	switch value {
	case RouterFallbackHouse, RouterFallbackNextHarness, RouterFallbackTellMe:
		return ""
	}
	return "must be house, next_harness or tell_me"
}

// harnessNames lists the harness names, sorted, for messages.
func harnessNames(r *RouterBackend) string {
	names := make([]string, 0, len(r.Harnesses))
	for name := range r.Harnesses {
		names = append(names, name)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}
