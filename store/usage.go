package store

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"
)

// UsageCounters are every user's usage of the agent, per UTC day and per
// backend and model: turns, input and output tokens and cost, counted from
// the exact usage on the turns' final receipts. The runtime adds a turn's
// usage when it records the turn's final receipt and reads a user's day to
// enforce tokensPerDay and costPerDay; usageapi serves them (GET /usage).
// Besides each user's counters, the same sums are kept for everyone
// together. A day's counters last UsageRetention.
type UsageCounters interface {
	// AddUsage adds lines to user's counters, and to everyone's, of the UTC
	// day of now. Lines of the same backend and model add up. A line with a
	// negative count is refused (ErrUsageNegative), and nothing is added.
	AddUsage(ctx context.Context, user string, now time.Time, lines []UsageLine) error
	// UsageOfDay sums user's counters of the UTC day of now over every
	// backend and model (Backend and Model are "").
	UsageOfDay(ctx context.Context, user string, now time.Time) (UsageLine, error)
	// ReadUsage reads the counters of each day of q.Days (YYYY-MM-DD, in
	// the order given) of q.User, or of everyone when q.Everyone. Days
	// with nothing counted are left out; each day's lines are in backend,
	// then model order.
	ReadUsage(ctx context.Context, q UsageQuery) ([]UsageDay, error)
}

// ErrUsageNegative refuses usage with a negative count: counters only
// grow.
var ErrUsageNegative = errors.New("store: usage counts cannot be negative")

// UsageRetention is how long a day's usage counters are kept.
const UsageRetention = 400 * 24 * time.Hour

// UsageLine is the usage of one backend and model: turns (final
// receipts), input and output tokens, and cost in micro-dollars where
// the backend knows it.
type UsageLine struct {
	Backend      string `json:"backend"`
	Model        string `json:"model"`
	Turns        int64  `json:"turns"`
	InputTokens  int64  `json:"inputTokens"`
	OutputTokens int64  `json:"outputTokens"`
	CostMicros   int64  `json:"costMicros"`
}

// Add adds o's counts to l.
func (l *UsageLine) Add(o UsageLine) {
	l.Turns += o.Turns
	l.InputTokens += o.InputTokens
	l.OutputTokens += o.OutputTokens
	l.CostMicros += o.CostMicros
}

// Negative reports whether a count of l is below zero.
func (l UsageLine) Negative() bool {
	return l.Turns < 0 || l.InputTokens < 0 || l.OutputTokens < 0 || l.CostMicros < 0
}

// UsageDay is one UTC day's usage, per backend and model.
type UsageDay struct {
	Date  string      `json:"date"`
	Lines []UsageLine `json:"lines"`
}

// UsageQuery names whose usage to read, and on which days.
type UsageQuery struct {
	User     string
	Everyone bool
	Days     []string
}

// UsageDate is the UTC day of t as counters name it (YYYY-MM-DD).
func UsageDate(t time.Time) string { return t.UTC().Format(time.DateOnly) }

// SortUsageLines puts lines in backend, then model order.
func SortUsageLines(lines []UsageLine) {
	slices.SortFunc(lines, func(a, b UsageLine) int {
		if c := strings.Compare(a.Backend, b.Backend); c != 0 {
			return c
		}
		return strings.Compare(a.Model, b.Model)
	})
}
