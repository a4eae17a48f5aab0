package metrics

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/harnest/harnest/store"
)

// usageMetrics count what GET /usage counts, for every user together (no
// user label): turns, tokens and cost per backend and model, from the
// usage each turn's final receipt added to the counters
// (runtime.TurnReport.UsageLines).
type usageMetrics struct {
	turns  *prometheus.CounterVec
	tokens *prometheus.CounterVec
	cost   *prometheus.CounterVec

	mu     sync.Mutex
	models map[string]bool // model labels given so far (maxUsageModels at most)
}

// maxUsageModels bounds the model label: past it, new models count as
// "other", so that a backend that reports many model names cannot grow
// the series without end.
const maxUsageModels = 100

func newUsageMetrics() *usageMetrics {
	return &usageMetrics{
		turns: counterVec("harnest_usage_turns_total",
			"Turns whose final receipt was recorded, by backend and model (a turn that called several models counts on the first).", "backend", "model"),
		tokens: counterVec("harnest_usage_tokens_total",
			"Model tokens on the turns' final receipts, by backend, model and direction (input or output); GET /usage counts the same per user and day.", "backend", "model", "direction"),
		cost: counterVec("harnest_usage_cost_micros_total",
			"Cost in micro-dollars on the turns' final receipts, where the backend reports it, by backend and model.", "backend", "model"),
		models: map[string]bool{},
	}
}

func (u *usageMetrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{u.turns, u.tokens, u.cost}
}

// count adds one turn's usage lines.
func (u *usageMetrics) count(lines []store.UsageLine) {
	for _, l := range lines {
		model := u.modelLabel(l.Model)
		if l.Turns > 0 {
			u.turns.WithLabelValues(l.Backend, model).Add(float64(l.Turns))
		}
		if l.InputTokens > 0 {
			u.tokens.WithLabelValues(l.Backend, model, "input").Add(float64(l.InputTokens))
		}
		if l.OutputTokens > 0 {
			u.tokens.WithLabelValues(l.Backend, model, "output").Add(float64(l.OutputTokens))
		}
		if l.CostMicros > 0 {
			u.cost.WithLabelValues(l.Backend, model).Add(float64(l.CostMicros))
		}
	}
}

// modelLabel is model, or "other" once maxUsageModels others were given.
func (u *usageMetrics) modelLabel(model string) string {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.models[model] {
		return model
	}
	if len(u.models) >= maxUsageModels {
		return "other"
	}
	u.models[model] = true
	return model
}
