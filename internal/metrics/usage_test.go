package metrics_test

import (
	"context"
	"testing"

	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/server/servertest"
)

// usageAgent reports two model calls: one of model a, with a cost, and one
// of model b.
func usageAgent(ctx context.Context, _ *runtime.Turn, emit runtime.Emit) error {
	for _, e := range []runtime.Event{
		{Type: runtime.EventAgentMetadata, Framework: "test", Model: "a", Usage: &runtime.Usage{InputTokens: 7, OutputTokens: 5, CostMicros: 30}},
		{Type: runtime.EventAgentMetadata, Framework: "test", Model: "b", Usage: &runtime.Usage{InputTokens: 1, OutputTokens: 2}},
		{Type: runtime.EventTextDelta, Delta: "done"},
	} {
		if err := emit(e); err != nil {
			return err
		}
	}
	return nil
}

// TestUsageTotals: the usage counters' totals per backend and model, with
// no user label: what GET /usage counts for everyone.
func TestUsageTotals(t *testing.T) {
	ts := servertest.Start(t, "", servertest.Setup{Agent: runtime.AgentFunc(usageAgent)})
	for range 2 {
		servertest.MustStatus(t, ts.Post("/responses", `{"input":"go"}`), 200)
	}
	families := settled(t, ts)
	expect(t, families, map[string]float64{
		"harnest_usage_turns_total|backend=echo|model=a":                   2,
		"harnest_usage_turns_total|backend=echo|model=b":                   0,
		"harnest_usage_tokens_total|backend=echo|model=a|direction=input":  14,
		"harnest_usage_tokens_total|backend=echo|model=a|direction=output": 10,
		"harnest_usage_tokens_total|backend=echo|model=b|direction=input":  2,
		"harnest_usage_tokens_total|backend=echo|model=b|direction=output": 4,
		"harnest_usage_cost_micros_total|backend=echo|model=a":             60,
		"harnest_usage_cost_micros_total|backend=echo|model=b":             0,
	})
	for _, f := range []string{"harnest_usage_turns_total", "harnest_usage_tokens_total", "harnest_usage_cost_micros_total"} {
		for _, m := range families[f].GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "user" {
					t.Fatalf("%s has a user label", f)
				}
			}
		}
	}
}
