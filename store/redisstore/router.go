package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/harnest/harnest/store"
)

// The router's keys share one hash tag (one agent's router, one slot on
// Cluster):
//
//	{router}:day:<YYYY-MM-DD>      HASH counter -> value, for two days
//	{router}:breaker:<harness>     HASH openUntil, trialUntil (Unix ms), seq
//	{router}:failures:<harness>    ZSET score = failure time (ms)
//	{router}:settings              HASH the owner's overrides
//	{router}:receipts              ZSET all scores 0, member "<µs, 16 digits>:<responseId>"
//	{router}:receipt               HASH member -> receipt JSON

func (s *Store) routerKey(part string) string { return s.prefix + "{router}:" + part }

// routerCountScript adds ARGV[2] to counter ARGV[1] when it stays within
// ARGV[3] (negative: no limit): {value, added}.
var routerCountScript = redis.NewScript(`
local cur = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0')
local by, limit = tonumber(ARGV[2]), tonumber(ARGV[3])
if limit >= 0 and cur + by > limit then return {cur, 0} end
local n = redis.call('HINCRBY', KEYS[1], ARGV[1], by)
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return {n, 1}
`)

// TakeRouterCount adds to a day's counter within a limit.
func (s *Store) TakeRouterCount(ctx context.Context, name string, by, limit int64, now time.Time) (int64, bool, error) {
	key := s.routerKey("day:" + now.UTC().Format(time.DateOnly))
	res, err := routerCountScript.Run(ctx, s.rdb, []string{key}, name, by, limit, (48 * time.Hour).Milliseconds()).Int64Slice()
	if err != nil || len(res) != 2 {
		return 0, false, fmt.Errorf("store: router count: %w", err)
	}
	return res[0], res[1] == 1, nil
}

// RouterCounts reads a day's counters.
func (s *Store) RouterCounts(ctx context.Context, now time.Time) (map[string]int64, error) {
	m, err := s.rdb.HGetAll(ctx, s.routerKey("day:"+now.UTC().Format(time.DateOnly))).Result()
	if err != nil {
		return nil, fmt.Errorf("store: router counts: %w", err)
	}
	out := make(map[string]int64, len(m))
	for k, v := range m {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("store: router counter %q is not a number", k)
		}
		out[k] = n
	}
	return out, nil
}

// routerStateLua computes the breaker state from open (openUntil) and now.
const routerStateLua = `
local function state(open, now)
  if open == 0 then return 'closed' end
  if now < open then return 'open' end
  return 'half_open'
end
`

// routerAdmitScript: ARGV now, trial timeout (ms). {admitted, state}.
var routerAdmitScript = redis.NewScript(routerStateLua + `
local now = tonumber(ARGV[1])
local open = tonumber(redis.call('HGET', KEYS[1], 'openUntil') or '0')
local st = state(open, now)
if st == 'closed' then return {1, st} end
if st == 'open' then return {0, st} end
local trial = tonumber(redis.call('HGET', KEYS[1], 'trialUntil') or '0')
if now < trial then return {0, st} end
redis.call('HSET', KEYS[1], 'trialUntil', now + tonumber(ARGV[2]))
return {1, st}
`)

// routerReportScript: ARGV now, ok (1/0), window, failures, cool-down,
// key lifetime (ms). The state after.
var routerReportScript = redis.NewScript(routerStateLua + `
local now = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - tonumber(ARGV[3]))
local open = tonumber(redis.call('HGET', KEYS[1], 'openUntil') or '0')
local trial = state(open, now) == 'half_open'
local function reopen()
  redis.call('DEL', KEYS[2])
  redis.call('HSET', KEYS[1], 'openUntil', now + tonumber(ARGV[5]), 'trialUntil', 0)
  redis.call('PEXPIRE', KEYS[1], ARGV[6])
  return 'open'
end
if ARGV[2] == '1' then
  if trial then redis.call('DEL', KEYS[1], KEYS[2]) return 'closed' end
  return state(open, now)
end
if trial then return reopen() end
local seq = redis.call('HINCRBY', KEYS[1], 'seq', 1)
redis.call('ZADD', KEYS[2], now, seq)
redis.call('PEXPIRE', KEYS[2], ARGV[6])
redis.call('PEXPIRE', KEYS[1], ARGV[6])
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[4]) then return reopen() end
return state(open, now)
`)

func (s *Store) breakerKeys(harness string) []string {
	return []string{s.routerKey("breaker:" + escapeID(harness)), s.routerKey("failures:" + escapeID(harness))}
}

// AdmitRouterHarness asks the breaker for a turn.
func (s *Store) AdmitRouterHarness(ctx context.Context, harness string, b store.RouterBreakerPolicy, now time.Time) (bool, string, error) {
	res, err := routerAdmitScript.Run(ctx, s.rdb, s.breakerKeys(harness)[:1], now.UnixMilli(), b.TrialTimeout.Milliseconds()).Slice()
	if err != nil || len(res) != 2 {
		return false, "", fmt.Errorf("store: router admit: %w", err)
	}
	admitted, _ := res[0].(int64)
	st, _ := res[1].(string)
	return admitted == 1, st, nil
}

// ReportRouterHarness records a turn's outcome.
func (s *Store) ReportRouterHarness(ctx context.Context, harness string, b store.RouterBreakerPolicy, ok bool, now time.Time) (string, error) {
	okArg := 0
	if ok {
		okArg = 1
	}
	life := 2 * (b.Window + b.CoolDown + b.TrialTimeout)
	st, err := routerReportScript.Run(ctx, s.rdb, s.breakerKeys(harness), now.UnixMilli(), okArg,
		b.Window.Milliseconds(), b.Failures, b.CoolDown.Milliseconds(), life.Milliseconds()).Text()
	if err != nil {
		return "", fmt.Errorf("store: router report: %w", err)
	}
	return st, nil
}

// RouterBreakerState reads a breaker's state.
func (s *Store) RouterBreakerState(ctx context.Context, harness string, _ store.RouterBreakerPolicy, now time.Time) (string, error) {
	v, err := s.rdb.HGet(ctx, s.breakerKeys(harness)[0], "openUntil").Int64()
	switch {
	case errors.Is(err, redis.Nil) || err == nil && v == 0:
		return store.RouterClosed, nil
	case err != nil:
		return "", fmt.Errorf("store: router breaker: %w", err)
	case now.UnixMilli() < v:
		return store.RouterOpen, nil
	}
	return store.RouterHalfOpen, nil
}

// RouterOverrides reads the owner's overrides.
func (s *Store) RouterOverrides(ctx context.Context) (store.RouterOverrides, error) {
	m, err := s.rdb.HGetAll(ctx, s.routerKey("settings")).Result()
	if err != nil {
		return store.RouterOverrides{}, fmt.Errorf("store: router settings: %w", err)
	}
	o := store.RouterOverrides{Paused: map[string]bool{}}
	for k, v := range m {
		v := v
		switch k {
		case "choice":
			o.Choice = &v
		case "ownerTurns":
			o.OwnerTurns = &v
		case "visitorTurns":
			o.VisitorTurns = &v
		case "fallback":
			o.Fallback = &v
		case "dailyTurns":
			n, err := strconv.Atoi(v)
			if err != nil {
				return store.RouterOverrides{}, errors.New("store: router settings: dailyTurns is not a number")
			}
			o.DailyTurns = &n
		case "allowed":
			var allowed []string
			if err := json.Unmarshal([]byte(v), &allowed); err != nil {
				return store.RouterOverrides{}, errors.New("store: router settings: allowed is not a JSON list")
			}
			o.Allowed = &allowed
		default:
			if name, ok := strings.CutPrefix(k, "paused:"); ok {
				o.Paused[name] = true
			}
		}
	}
	return o, nil
}

// SetRouterOverrides writes the set fields, all at once.
func (s *Store) SetRouterOverrides(ctx context.Context, o store.RouterOverrides) error {
	set := map[string]any{}
	for field, v := range map[string]*string{"choice": o.Choice, "ownerTurns": o.OwnerTurns, "visitorTurns": o.VisitorTurns, "fallback": o.Fallback} {
		if v != nil {
			set[field] = *v
		}
	}
	if o.DailyTurns != nil {
		set["dailyTurns"] = *o.DailyTurns
	}
	if o.Allowed != nil {
		b, err := json.Marshal(*o.Allowed)
		if err != nil {
			return err
		}
		set["allowed"] = string(b)
	}
	var unset []string
	for name, paused := range o.Paused {
		if paused {
			set["paused:"+name] = "1"
		} else {
			unset = append(unset, "paused:"+name)
		}
	}
	key := s.routerKey("settings")
	_, err := s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		if len(set) > 0 {
			p.HSet(ctx, key, set)
		}
		if len(unset) > 0 {
			p.HDel(ctx, key, unset...)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: set router settings: %w", err)
	}
	return nil
}

// routerReceiptScript keeps a receipt and drops those past the retention
// (members below ARGV[3]) and past the most kept (ARGV[4]).
var routerReceiptScript = redis.NewScript(`
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[1], 0, ARGV[1])
local old = redis.call('ZRANGEBYLEX', KEYS[1], '-', '(' .. ARGV[3], 'LIMIT', 0, 1000)
local over = redis.call('ZCARD', KEYS[1]) - #old - tonumber(ARGV[4])
if over > 0 then
  for _, m in ipairs(redis.call('ZRANGE', KEYS[1], #old, #old + over - 1)) do table.insert(old, m) end
end
if #old > 0 then
  redis.call('HDEL', KEYS[2], unpack(old))
  redis.call('ZREM', KEYS[1], unpack(old))
end
return #old
`)

// routerReceiptMember is a receipt's member and cursor.
func routerReceiptMember(r store.RouterReceipt) string {
	return fmt.Sprintf("%016d:%s", r.At.UnixMicro(), r.ResponseID)
}

// AddRouterReceipt keeps a receipt.
func (s *Store) AddRouterReceipt(ctx context.Context, r store.RouterReceipt) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	cut := fmt.Sprintf("%016d:", r.At.Add(-s.receiptTTL).UnixMicro())
	err = routerReceiptScript.Run(ctx, s.rdb, []string{s.routerKey("receipts"), s.routerKey("receipt")},
		routerReceiptMember(r), b, cut, store.RouterReceiptsMax).Err()
	if err != nil {
		return fmt.Errorf("store: add router receipt: %w", err)
	}
	return nil
}

// ListRouterReceipts returns a page, newest first.
func (s *Store) ListRouterReceipts(ctx context.Context, cursor string, limit int, now time.Time) (store.RouterReceiptPage, error) {
	limit = min(max(limit, 1), 100)
	top := "+"
	if cursor != "" {
		top = "(" + cursor
	}
	cut := fmt.Sprintf("[%016d:", now.Add(-s.receiptTTL).UnixMicro())
	members, err := s.rdb.ZRevRangeByLex(ctx, s.routerKey("receipts"), &redis.ZRangeBy{Max: top, Min: cut, Count: int64(limit + 1)}).Result()
	if err != nil {
		return store.RouterReceiptPage{}, fmt.Errorf("store: list router receipts: %w", err)
	}
	var page store.RouterReceiptPage
	if len(members) > limit {
		members = members[:limit]
		page.Next = members[limit-1]
	}
	if len(members) == 0 {
		return page, nil
	}
	values, err := s.rdb.HMGet(ctx, s.routerKey("receipt"), members...).Result()
	if err != nil {
		return store.RouterReceiptPage{}, fmt.Errorf("store: read router receipts: %w", err)
	}
	for _, v := range values {
		text, ok := v.(string)
		if !ok {
			continue // dropped meanwhile
		}
		var r store.RouterReceipt
		if err := json.Unmarshal([]byte(text), &r); err != nil {
			return store.RouterReceiptPage{}, fmt.Errorf("store: decode router receipt: %w", err)
		}
		page.Receipts = append(page.Receipts, r)
	}
	return page, nil
}
