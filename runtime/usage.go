package runtime

import (
	"context"
	"fmt"

	"github.com/harnest/harnest/store"
)

// Usage counters and budgets. A turn's final step carries the usage on
// its receipt (its agent_metadata items' tokens and cost, per model) and
// the turn itself (store.Commit.Usage): the store adds them to its user's
// counters of the day (store.UsageCounters), shared by every replica,
// when it writes the step, in the same round trip. A new turn is refused
// once its user's day reached tokensPerDay or costPerDay.

// defaultUsageBackend names the backend in the counters when the service
// was given no name.
const defaultUsageBackend = "agent"

// usageLines is what a final envelope adds to the counters: its usage per
// model, in the order the models first reported, the turn counted on the
// first (a turn that called several models is one turn). A turn whose
// agent reported no usage is one line of no model.
func usageLines(backend string, env *Envelope) []store.UsageLine {
	if backend == "" {
		backend = defaultUsageBackend
	}
	var lines []store.UsageLine
	if env.Usage != nil { // the receipt's usage: the sum of these items
		for _, it := range env.Output {
			u := it.Usage
			if it.Type != "agent_metadata" || u == nil || (u.InputTokens == 0 && u.OutputTokens == 0 && u.CostMicros == 0) {
				continue
			}
			i := 0
			for i < len(lines) && lines[i].Model != it.Model {
				i++
			}
			if i == len(lines) {
				lines = append(lines, store.UsageLine{Backend: backend, Model: it.Model})
			}
			lines[i].InputTokens += int64(u.InputTokens)
			lines[i].OutputTokens += int64(u.OutputTokens)
			lines[i].CostMicros += int64(u.CostMicros)
		}
	}
	if len(lines) == 0 {
		lines = append(lines, store.UsageLine{Backend: backend})
	}
	lines[0].Turns = 1
	return lines
}

// countedUsage is what a turn's final step added to the usage counters:
// its usage when the step recorded this replica's receipt, else nothing.
func countedUsage(recorded bool, usage []store.UsageLine) []store.UsageLine {
	if !recorded {
		return nil
	}
	return usage
}

// checkUsageBudget refuses a new turn of user once the day's tokens or
// cost reached the user's limit (0: none). The turn that crosses a limit
// runs to its end (its usage is known only then); the next is refused.
func (s *Service) checkUsageBudget(ctx context.Context, user string) error {
	l := s.limits
	if l.TokensPerDay <= 0 && l.CostPerDayMicros <= 0 {
		return nil
	}
	now := s.now()
	day, err := s.store.UsageOfDay(ctx, user, now)
	if err != nil {
		return s.storeFailure(err)
	}
	wait := untilNextUTCDay(now)
	if tokens := day.InputTokens + day.OutputTokens; l.TokensPerDay > 0 && tokens >= l.TokensPerDay {
		return RateLimitedError(wait,
			"You have used %d of your %d tokens for today (tokensPerDay, UTC); come back %s, after midnight UTC",
			tokens, l.TokensPerDay, FormatWait(wait))
	}
	if l.CostPerDayMicros > 0 && day.CostMicros >= l.CostPerDayMicros {
		return RateLimitedError(wait,
			"You have spent $%s of your $%s for today (costPerDay, UTC); come back %s, after midnight UTC",
			dollars(day.CostMicros), dollars(l.CostPerDayMicros), FormatWait(wait))
	}
	return nil
}

// dollars writes micro-dollars as dollars: to the cent when that is
// exact, else to the micro-dollar.
func dollars(micros int64) string {
	if micros%10_000 == 0 {
		return fmt.Sprintf("%d.%02d", micros/1_000_000, micros%1_000_000/10_000)
	}
	return fmt.Sprintf("%d.%06d", micros/1_000_000, micros%1_000_000)
}
