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
//
// A turn's usage comes with its final step (store.Commit.Usage): where one
// server holds every key, the commit's script (commit.go) or a new
// session's transaction (commit_new.go, usageOnceScript) adds it with the
// step, atomically; on a Cluster it is sent after the step is written
// (two more round trips: the user's, with a mark of the response so that
// a step sent again counts once, then everyone's), and is missing when
// the replica dies in between.

func (s *Store) usageKey(user string, everyone bool, day string) string {
	if everyone {
		return s.prefix + "{g*}:" + day
	}
	return s.prefix + "{g:" + escapeID(user) + "}:" + day
}

// usageCounts are a line's counts, with their fields' first letter.
func usageCounts(l store.UsageLine) [4]struct {
	kind byte
	n    int64
} {
	return [4]struct {
		kind byte
		n    int64
	}{{'t', l.Turns}, {'i', l.InputTokens}, {'o', l.OutputTokens}, {'c', l.CostMicros}}
}

// usagePairs is how many fields and counts lines add: every count that is
// not 0, and the turns whatever they are (the line is there).
func usagePairs(lines []store.UsageLine) int {
	n := 0
	for _, l := range lines {
		for _, c := range usageCounts(l) {
			if c.n != 0 || c.kind == 't' {
				n++
			}
		}
	}
	return n
}

// appendUsageArgs adds the usagePairs fields and counts of lines to a.
func appendUsageArgs(a *argList, lines []store.UsageLine) {
	for _, l := range lines {
		suffix := ":" + escapeID(l.Backend) + ":" + escapeID(l.Model)
		for _, c := range usageCounts(l) {
			if c.n != 0 || c.kind == 't' {
				a.str(string(c.kind) + suffix)
				a.num(c.n)
			}
		}
	}
}

// usageArgs are appendUsageArgs' arguments on their own.
func usageArgs(lines []store.UsageLine) []any {
	a := newArgList(2*usagePairs(lines), usagePairs(lines), usagePairs(lines))
	appendUsageArgs(&a, lines)
	return a.args
}

// usageScript adds counts to one day's hash and keeps it ARGV[1] ms
// more: ARGV[2], ARGV[3] ... are field and count pairs.
var usageScript = redis.NewScript(`
for i = 2, #ARGV, 2 do redis.call('HINCRBY', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1
`)

// usageOnceScript is usageScript for a new session's one-step turn, in
// its transaction (commit_new.go), before the turn's log is written: sent
// again (its first answer lost), the transaction finds the log KEYS[1]
// and adds nothing twice. KEYS 2 and 3 are the user's and everyone's day.
// It is sent as EVAL, with its source: a transaction cannot load a script
// that Redis forgot.
const usageOnceSource = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
for _, k in ipairs({KEYS[2], KEYS[3]}) do
  for i = 2, #ARGV, 2 do redis.call('HINCRBY', k, ARGV[i], ARGV[i + 1]) end
  redis.call('PEXPIRE', k, ARGV[1])
end
return 1
`

// checkUsage refuses lines with a negative count.
func checkUsage(lines []store.UsageLine) error {
	for _, l := range lines {
		if l.Negative() {
			return store.ErrUsageNegative
		}
	}
	return nil
}

// AddUsage adds lines to user's and everyone's hashes of now's day.
func (s *Store) AddUsage(ctx context.Context, user string, now time.Time, lines []store.UsageLine) error {
	if err := checkUsage(lines); err != nil {
		return err
	}
	return s.addUsage(ctx, user, store.UsageDate(now), lines)
}

// addUsage adds lines to the hashes of day: a script each (one slot
// each), both in one round trip.
func (s *Store) addUsage(ctx context.Context, user, day string, lines []store.UsageLine) error {
	if len(lines) == 0 {
		return nil
	}
	args := append([]any{store.UsageRetention.Milliseconds()}, usageArgs(lines)...)
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

// usageMarkScript is usageScript for a step written on a Cluster: it adds
// to the user's day KEYS[2] only when the response's mark KEYS[1] (same
// slot) was not set yet, and sets it for ARGV[2] ms: 1 when it added, 0
// when the step's usage was counted before (the step was sent again).
var usageMarkScript = redis.NewScript(`
if not redis.call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[2]) then return 0 end
for i = 3, #ARGV, 2 do redis.call('HINCRBY', KEYS[2], ARGV[i], ARGV[i + 1]) end
redis.call('PEXPIRE', KEYS[2], ARGV[1])
return 1
`)

// usageMarkTTL is how long a response's usage mark lasts: longer than
// the runtime retries a final step.
const usageMarkTTL = 24 * time.Hour

// addUsageAfter adds a written step's usage where its script or
// transaction could not (a Cluster): the user's day with the response's
// mark, so that a step sent again counts once, then everyone's. A
// failure is not the step's: the usage is missing from the counters.
func (s *Store) addUsageAfter(ctx context.Context, c store.Commit) {
	if !s.clustered || !c.Release || len(c.Usage) == 0 {
		return
	}
	mark := s.prefix + "{g:" + escapeID(c.User) + "}:once:" + escapeID(c.ResponseID)
	fields := usageArgs(c.Usage)
	args := append([]any{store.UsageRetention.Milliseconds(), usageMarkTTL.Milliseconds()}, fields...)
	added, err := usageMarkScript.Run(ctx, s.rdb, []string{mark, s.usageKey(c.User, false, c.UsageDay)}, args...).Int()
	if err != nil || added == 0 {
		return
	}
	args = append([]any{store.UsageRetention.Milliseconds()}, fields...)
	_ = usageScript.Run(ctx, s.rdb, []string{s.usageKey("", true, c.UsageDay)}, args...).Err()
}
