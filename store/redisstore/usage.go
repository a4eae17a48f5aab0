package redisstore

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/harnest/harnest/store"
)

// Usage counters (store.UsageCounters). A user's day is one hash under the
// user's own hash tag, everyone's day one hash under a tag of its own, so
// every script keeps to one slot (a turn's usage is two scripts, sent in
// one round trip):
//
//	{g:user}:<UTC day>   HASH <count>:<backend>:<model> -> count
//	{g*}:<UTC day>       HASH the same, for everyone together
//
// where <count> is t (turns), i (input tokens), o (output tokens) or c
// (cost in micro-dollars), and backend and model are escaped (keys.go).
// Each hash lasts store.UsageRetention after its last write.

func (s *Store) usageKey(user string, everyone bool, day string) string {
	if everyone {
		return s.prefix + "{g*}:" + day
	}
	return s.prefix + "{g:" + escapeID(user) + "}:" + day
}

// usageCounts are the fields of a line, with their counts.
func usageCounts(l store.UsageLine) [4]struct {
	field string
	n     int64
} {
	suffix := ":" + escapeID(l.Backend) + ":" + escapeID(l.Model)
	return [4]struct {
		field string
		n     int64
	}{{"t" + suffix, l.Turns}, {"i" + suffix, l.InputTokens}, {"o" + suffix, l.OutputTokens}, {"c" + suffix, l.CostMicros}}
}

// usageScript adds counts to one day's hash and keeps it ARGV[1] ms
// more: ARGV[2], ARGV[3] ... are field and count pairs.
var usageScript = redis.NewScript(`
for i = 2, #ARGV, 2 do redis.call('HINCRBY', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1
`)

// AddUsage adds lines to user's and everyone's hashes of now's day: a
// script each (one slot each), both in one round trip.
func (s *Store) AddUsage(ctx context.Context, user string, now time.Time, lines []store.UsageLine) error {
	for _, l := range lines {
		if l.Negative() {
			return store.ErrUsageNegative
		}
	}
	if len(lines) == 0 {
		return nil
	}
	args := make([]any, 0, 1+8*len(lines))
	args = append(args, store.UsageRetention.Milliseconds())
	for _, l := range lines {
		for _, c := range usageCounts(l) {
			if c.n != 0 || c.field[0] == 't' {
				args = append(args, c.field, c.n)
			}
		}
	}
	day := store.UsageDate(now)
	err := s.pipelined(ctx, func(p redis.Pipeliner) {
		usageScript.EvalSha(ctx, p, []string{s.usageKey(user, false, day)}, args...)
		usageScript.EvalSha(ctx, p, []string{s.usageKey("", true, day)}, args...)
	})
	if err != nil {
		return fmt.Errorf("store: add usage: %w", err)
	}
	return nil
}

// UsageOfDay sums user's hash of now's day.
func (s *Store) UsageOfDay(ctx context.Context, user string, now time.Time) (store.UsageLine, error) {
	fields, err := s.rdb.HGetAll(ctx, s.usageKey(user, false, store.UsageDate(now))).Result()
	if err != nil {
		return store.UsageLine{}, fmt.Errorf("store: read usage: %w", err)
	}
	var sum store.UsageLine
	for _, l := range usageLines(fields) {
		sum.Add(l)
	}
	return sum, nil
}

// ReadUsage reads the hashes of q's days, in one round trip.
func (s *Store) ReadUsage(ctx context.Context, q store.UsageQuery) ([]store.UsageDay, error) {
	if len(q.Days) == 0 {
		return nil, nil
	}
	cmds := make([]*redis.MapStringStringCmd, len(q.Days))
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, d := range q.Days {
			cmds[i] = p.HGetAll(ctx, s.usageKey(q.User, q.Everyone, d))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: read usage: %w", err)
	}
	var out []store.UsageDay
	for i, cmd := range cmds {
		if lines := usageLines(cmd.Val()); len(lines) > 0 {
			out = append(out, store.UsageDay{Date: q.Days[i], Lines: lines})
		}
	}
	return out, nil
}

// usageLines reads a day's hash back into lines, in backend, then model
// order. Fields it does not know are skipped.
func usageLines(fields map[string]string) []store.UsageLine {
	byKey := map[string]*store.UsageLine{}
	for f, v := range fields {
		parts := strings.SplitN(f, ":", 3)
		n, err := strconv.ParseInt(v, 10, 64)
		if len(parts) != 3 || err != nil {
			continue
		}
		l := byKey[parts[1]+":"+parts[2]]
		if l == nil {
			l = &store.UsageLine{Backend: unescapeID(parts[1]), Model: unescapeID(parts[2])}
			byKey[parts[1]+":"+parts[2]] = l
		}
		switch parts[0] {
		case "t":
			l.Turns = n
		case "i":
			l.InputTokens = n
		case "o":
			l.OutputTokens = n
		case "c":
			l.CostMicros = n
		}
	}
	lines := make([]store.UsageLine, 0, len(byKey))
	for _, l := range byKey {
		lines = append(lines, *l)
	}
	store.SortUsageLines(lines)
	return lines
}

// idUnescaper undoes escapeID.
var idUnescaper = strings.NewReplacer("%25", "%", "%3A", ":", "%7B", "{", "%7D", "}")

func unescapeID(id string) string {
	if !strings.Contains(id, "%") {
		return id
	}
	return idUnescaper.Replace(id)
}
