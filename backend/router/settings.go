package router

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/store"
)

// settings are the router's config with the owner's overrides applied:
// what one turn is routed by.
type settings struct {
	choice       string
	ownerTurns   string
	visitorTurns string
	fallback     string
	ownerDaily   int             // the owner's daily cap; -1: none
	allowed      map[string]bool // nil: every harness
	paused       map[string]bool
}

// effective applies the owner's overrides to the config.
func (r *Router) effective(o store.RouterOverrides) settings {
	turns := r.cfg.Turns.WithDefaults()
	s := settings{choice: r.cfg.Choice, ownerTurns: turns.Owner, visitorTurns: turns.Visitor,
		fallback: r.cfg.Fallback, ownerDaily: -1, paused: o.Paused}
	if s.fallback == "" {
		s.fallback = config.DefaultRouterFallback
	}
	for _, f := range []struct {
		dst *string
		src *string
	}{{&s.choice, o.Choice}, {&s.ownerTurns, o.OwnerTurns}, {&s.visitorTurns, o.VisitorTurns}, {&s.fallback, o.Fallback}} {
		if f.src != nil {
			*f.dst = *f.src
		}
	}
	if o.DailyTurns != nil {
		s.ownerDaily = *o.DailyTurns
	}
	if o.Allowed != nil {
		s.allowed = map[string]bool{}
		for _, name := range *o.Allowed {
			s.allowed[name] = true
		}
	}
	if s.paused == nil {
		s.paused = map[string]bool{}
	}
	return s
}

// isAllowed reports whether the owner allows a harness.
func (s settings) isAllowed(name string) bool { return s.allowed == nil || s.allowed[name] }

// Settings are the owner's changes, as POST /owner/router/settings takes
// them; nil fields stay as they are.
type Settings struct {
	Allowed    *[]string `json:"allowed,omitempty"`
	Paused     *[]string `json:"paused,omitempty"`
	DailyTurns *int      `json:"dailyTurns,omitempty"`
	Fallback   *string   `json:"fallback,omitempty"`
}

// checkHarnesses says which names are not harnesses.
func (r *Router) checkHarnesses(field string, names []string) error {
	for _, name := range names {
		if _, ok := r.cfg.Harnesses[name]; !ok {
			return fmt.Errorf("%s: %q is not a harness; use %s", field, name, strings.Join(r.order, ", "))
		}
	}
	return nil
}

// overridesOf validates the owner's settings like config and turns them
// into store overrides. A daily cap above the plan's is refused: the
// owner may only narrow it.
func (r *Router) overridesOf(s Settings) (store.RouterOverrides, error) {
	var o store.RouterOverrides
	if s.Allowed != nil {
		if err := r.checkHarnesses("allowed", *s.Allowed); err != nil {
			return o, err
		}
		o.Allowed = s.Allowed
	}
	if s.Paused != nil {
		if err := r.checkHarnesses("paused", *s.Paused); err != nil {
			return o, err
		}
		o.Paused = map[string]bool{}
		for _, name := range r.order {
			o.Paused[name] = slices.Contains(*s.Paused, name)
		}
	}
	if n := s.DailyTurns; n != nil {
		if *n < 0 || *n > r.cfg.PlanTurns() {
			return o, fmt.Errorf("dailyTurns must be between 0 and the plan's %d routed turns a day; the owner's cap only narrows the plan", r.cfg.PlanTurns())
		}
		o.DailyTurns = n
	}
	if f := s.Fallback; f != nil {
		if msg := config.RouterFallbackProblem(*f); msg != "" {
			return o, fmt.Errorf("fallback %s", msg)
		}
		o.Fallback = f
	}
	return o, nil
}

// words splits text into lowercase words, for matching skills.
func words(text string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(c rune) bool {
		return !unicode.IsLetter(c) && !unicode.IsDigit(c)
	}) {
		out[w] = true
	}
	return out
}

// bySkills picks the harness whose skills best match the input's words
// (each skill's words all in the input count once), ties to the declared
// order (no match at all: the first usable harness); "" when none is usable.
func (r *Router) bySkills(input string, usable func(string) bool) string {
	in := words(input)
	best, bestScore := "", 0
	for _, name := range r.order {
		if !usable(name) {
			continue
		}
		score := 0
		for _, skill := range r.cfg.Harnesses[name].Skills {
			match := true
			for w := range words(skill) {
				match = match && in[w]
			}
			if match {
				score++
			}
		}
		if score > bestScore || best == "" {
			best, bestScore = name, score
		}
	}
	return best
}
