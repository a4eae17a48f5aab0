package config

import "math"

// Bounds of the per-user usage budgets.
const (
	maxTokensPerDay = 1_000_000_000_000 // a trillion tokens
	maxCostPerDay   = 1_000_000         // dollars
)

// usageLimits checks the per-user budgets of tokens and cost per day (0:
// no limit).
func (v *validator) usageLimits(l Limits) {
	if l.TokensPerDay < 0 || l.TokensPerDay > maxTokensPerDay {
		v.problem("server.limits.tokensPerDay", "must be between 0 (no limit) and %d", int64(maxTokensPerDay))
	}
	if math.IsNaN(l.CostPerDay) || l.CostPerDay < 0 || l.CostPerDay > maxCostPerDay {
		v.problem("server.limits.costPerDay", "must be a number of dollars between 0 (no limit) and %d", maxCostPerDay)
	}
}

// CostPerDayMicros is CostPerDay in micro-dollars, rounded to the nearest.
func (l Limits) CostPerDayMicros() int64 { return int64(math.Round(l.CostPerDay * 1_000_000)) }
