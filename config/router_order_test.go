package config

import (
	"slices"
	"testing"
)

// routerConfig is a config whose backend is a router with the given
// YAML under spec.backend.router (indented by six spaces).
func routerConfig(router string) string {
	return `apiVersion: harnest.dev/v1alpha1
kind: Agent
metadata:
  name: my-agent
spec:
  backend:
    router:
` + router
}

func TestRouterDeclaredOrder(t *testing.T) {
	harnesses := `      harnesses:
        zulu: {echo: {}}
        alpha: {echo: {}}
        mike: &mike {echo: {}}
        bravo: *mike
      house: alpha
`
	tests := []struct {
		name, extra string
		want        []string
	}{
		{"the mapping's order", "", []string{"zulu", "alpha", "mike", "bravo"}},
		{"order overrides it", "      order: [bravo, mike, alpha, zulu]\n", []string{"bravo", "mike", "alpha", "zulu"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := mustLoad(t, writeFolder(t, routerConfig(harnesses+tt.extra), minimalCard, minimalInstructions), nil).Config
			if got := c.Spec.Backend.Router.DeclaredOrder(); !slices.Equal(got, tt.want) {
				t.Errorf("declared order %v, want %v", got, tt.want)
			}
		})
	}
}

func TestRouterDeclaredOrderDuplicate(t *testing.T) {
	probs := mustProblems(t, writeFolder(t, routerConfig(`      harnesses:
        zulu: {echo: {}}
        alpha: {echo: {}}
        zulu: {echo: {}}
      house: alpha
`), minimalCard, minimalInstructions), nil)
	if !hasLine(probs, "spec.backend.router.harnesses.zulu", "duplicate key") {
		t.Errorf("no duplicate-key problem:\n%v", probs)
	}
}

func TestRouterNamesWithoutPlaces(t *testing.T) {
	// A config built in Go has no places: its harnesses go by name.
	hs := RouterHarnesses{"zulu": {}, "alpha": {}, "mike": {}}
	if got := hs.Names(); !slices.Equal(got, []string{"alpha", "mike", "zulu"}) {
		t.Errorf("names %v", got)
	}
}

func TestRouterTurnPricing(t *testing.T) {
	c := mustLoad(t, writeFolder(t, routerConfig(`      harnesses:
        home: {echo: {}}
        paid: {echo: {}, pricing: {perTurnMicros: 100, maxTurnMicros: 250}, dailyCostCeilingMicros: 300}
      house: home
`), minimalCard, minimalInstructions), nil).Config
	paid := c.Spec.Backend.Router.Harnesses["paid"]
	if !paid.Priced() || paid.Pricing.PerTurnMicros != 100 || paid.Pricing.MaxTurnMicros != 250 {
		t.Errorf("pricing %+v", paid.Pricing)
	}
	probs := mustProblems(t, writeFolder(t, routerConfig(`      harnesses:
        home: {echo: {}}
        low: {echo: {}, pricing: {perTurnMicros: 100, maxTurnMicros: 50}}
        minus: {echo: {}, pricing: {perTurnMicros: -1}}
      house: home
`), minimalCard, minimalInstructions), nil)
	if !hasLine(probs, "spec.backend.router.harnesses.low.pricing.maxTurnMicros", "at least perTurnMicros") ||
		!hasLine(probs, "spec.backend.router.harnesses.minus.pricing", "0 or more") {
		t.Errorf("problems:\n%v", probs)
	}
}
