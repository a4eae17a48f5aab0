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

// Schedules live under one hash tag, {sched}, so that every script touches
// one slot (also on Redis Cluster):
//
//   - {sched}:s:<m>    HASH v (version), paused ("1"/"0"), next (Unix ms, 0:
//     none), fires (the last fire's number), json (the owner's definition)
//   - {sched}:f:<m>    HASH fire number -> the fire's JSON (without its hold)
//   - {sched}:u:<user> ZSET the user's schedule IDs, score 0 (listed by lex)
//   - {sched}:due      ZSET <m> by next fire time (Unix ms), unpaused only
//   - {sched}:pending  ZSET <m>\n<fire number> by the time its hold lapses,
//     for the fires recorded and not started
//
// <m> is the schedule's member, ["user","id"] as JSON: no two users' or
// schedules' members are equal, and it holds no newline.

func (s *Store) schedTag() string { return s.prefix + "{sched}" }

func scheduleMember(user, id string) string {
	b, _ := json.Marshal([2]string{user, id})
	return string(b)
}

func (s *Store) schedKey(m string) string     { return s.schedTag() + ":s:" + m }
func (s *Store) firesKey(m string) string     { return s.schedTag() + ":f:" + m }
func (s *Store) userSchedKey(u string) string { return s.schedTag() + ":u:" + escapeID(u) }
func (s *Store) dueKey() string               { return s.schedTag() + ":due" }
func (s *Store) pendingKey() string           { return s.schedTag() + ":pending" }

// parseScheduleMember reads a schedule's member of the due set.
func parseScheduleMember(m string) (store.ScheduleKey, bool) {
	var ids [2]string
	if json.Unmarshal([]byte(m), &ids) != nil {
		return store.ScheduleKey{}, false
	}
	return store.ScheduleKey{User: ids[0], ID: ids[1]}, true
}

func pendingMember(key store.FireKey) string {
	return scheduleMember(key.User, key.Schedule) + "\n" + strconv.FormatInt(key.Seq, 10)
}

func parsePendingMember(p string) (store.FireKey, bool) {
	m, seq, ok := strings.Cut(p, "\n")
	var ids [2]string
	n, err := strconv.ParseInt(seq, 10, 64)
	if !ok || err != nil || json.Unmarshal([]byte(m), &ids) != nil {
		return store.FireKey{}, false
	}
	return store.FireKey{User: ids[0], Schedule: ids[1], Seq: n}, true
}

func unixMillis(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

func fromMillis(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}

func flag(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// createScheduleScript. KEYS: schedule, user index, due. ARGV: id, max,
// member, paused, next ms, json.
var createScheduleScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return -1 end
local max = tonumber(ARGV[2])
if max > 0 and redis.call('ZCARD', KEYS[2]) >= max then return -2 end
redis.call('HSET', KEYS[1], 'v', 1, 'paused', ARGV[4], 'next', ARGV[5], 'fires', 0, 'json', ARGV[6])
redis.call('ZADD', KEYS[2], 0, ARGV[1])
if ARGV[4] == '0' and ARGV[5] ~= '0' then redis.call('ZADD', KEYS[3], ARGV[5], ARGV[3]) end
return 1
`)

// createScheduleRefusals are createScheduleScript's refusals.
var createScheduleRefusals = map[int64]error{-1: store.ErrScheduleExists, -2: store.ErrScheduleLimit}

// CreateSchedule stores a new schedule within the user's bound: one script.
func (s *Store) CreateSchedule(ctx context.Context, rec store.ScheduleRecord, max int) error {
	m := scheduleMember(rec.User, rec.ID)
	_, err := s.runCountingScript(ctx, createScheduleScript, []string{s.schedKey(m), s.userSchedKey(rec.User), s.dueKey()},
		"create schedule", createScheduleRefusals, rec.ID, max, m, flag(rec.Paused), unixMillis(rec.NextFire), rec.JSON)
	return err
}

// GetSchedule reads one schedule: one HGETALL.
func (s *Store) GetSchedule(ctx context.Context, user, id string) (store.ScheduleRecord, bool, error) {
	h, err := s.rdb.HGetAll(ctx, s.schedKey(scheduleMember(user, id))).Result()
	if err != nil {
		return store.ScheduleRecord{}, false, fmt.Errorf("store: get schedule: %w", err)
	}
	if len(h) == 0 {
		return store.ScheduleRecord{}, false, nil
	}
	return scheduleOf(user, id, h), true, nil
}

func scheduleOf(user, id string, h map[string]string) store.ScheduleRecord {
	v, _ := strconv.ParseInt(h["v"], 10, 64)
	next, _ := strconv.ParseInt(h["next"], 10, 64)
	fires, _ := strconv.ParseInt(h["fires"], 10, 64)
	return store.ScheduleRecord{User: user, ID: id, Version: v, Paused: h["paused"] == "1",
		NextFire: fromMillis(next), Fires: fires, JSON: []byte(h["json"])}
}

// ListSchedules returns a page of the user's schedules in ID order: one
// ZRANGE BYLEX and one pipelined HGETALL per schedule.
func (s *Store) ListSchedules(ctx context.Context, user, after string, limit int) ([]store.ScheduleRecord, error) {
	start := "-"
	if after != "" {
		start = "(" + after
	}
	if limit < 1 {
		limit = 1
	}
	ids, err := s.rdb.ZRangeArgs(ctx, redis.ZRangeArgs{Key: s.userSchedKey(user), Start: start, Stop: "+", ByLex: true, Count: int64(limit)}).Result()
	if err != nil {
		return nil, fmt.Errorf("store: list schedules: %w", err)
	}
	pipe := s.rdb.Pipeline()
	cmds := make([]*redis.MapStringStringCmd, len(ids))
	for i, id := range ids {
		cmds[i] = pipe.HGetAll(ctx, s.schedKey(scheduleMember(user, id)))
	}
	if len(ids) > 0 {
		if _, err := pipe.Exec(ctx); err != nil {
			return nil, fmt.Errorf("store: list schedules: %w", err)
		}
	}
	out := make([]store.ScheduleRecord, 0, len(ids))
	for i, id := range ids {
		if h := cmds[i].Val(); len(h) > 0 {
			out = append(out, scheduleOf(user, id, h))
		}
	}
	return out, nil
}

// updateScheduleScript. KEYS: schedule, due. ARGV: version, paused, next
// ms, json, member.
var updateScheduleScript = redis.NewScript(`
local v = redis.call('HGET', KEYS[1], 'v')
if not v then return -1 end
if v ~= ARGV[1] then return -2 end
redis.call('HSET', KEYS[1], 'v', tonumber(v) + 1, 'paused', ARGV[2], 'next', ARGV[3], 'json', ARGV[4])
if ARGV[2] == '0' and ARGV[3] ~= '0' then redis.call('ZADD', KEYS[2], ARGV[3], ARGV[5]) else redis.call('ZREM', KEYS[2], ARGV[5]) end
return 1
`)

// updateScheduleRefusals are updateScheduleScript's refusals.
var updateScheduleRefusals = map[int64]error{-1: store.ErrScheduleNotFound, -2: store.ErrScheduleChanged}

// UpdateSchedule replaces a schedule that did not change since it was
// read: one script.
func (s *Store) UpdateSchedule(ctx context.Context, rec store.ScheduleRecord) error {
	m := scheduleMember(rec.User, rec.ID)
	_, err := s.runCountingScript(ctx, updateScheduleScript, []string{s.schedKey(m), s.dueKey()},
		"update schedule", updateScheduleRefusals, rec.Version, flag(rec.Paused), unixMillis(rec.NextFire), rec.JSON, m)
	return err
}

// deleteScheduleScript. KEYS: schedule, fires, user index, due, pending.
// ARGV: id, member, most fires kept.
var deleteScheduleScript = redis.NewScript(`
local fires = redis.call('HGET', KEYS[1], 'fires')
if not fires then return 0 end
local last = tonumber(fires)
for seq = math.max(1, last - tonumber(ARGV[3]) + 1), last do redis.call('ZREM', KEYS[5], ARGV[2] .. '\n' .. seq) end
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('ZREM', KEYS[4], ARGV[2])
return 1
`)

// DeleteSchedule removes a schedule and its fires: one script.
func (s *Store) DeleteSchedule(ctx context.Context, user, id string) (bool, error) {
	m := scheduleMember(user, id)
	n, err := deleteScheduleScript.Run(ctx, s.rdb, []string{s.schedKey(m), s.firesKey(m), s.userSchedKey(user), s.dueKey(), s.pendingKey()},
		id, m, store.MaxFiresKept).Int()
	if err != nil {
		return false, fmt.Errorf("store: delete schedule: %w", err)
	}
	return n == 1, nil
}

// DueSchedules returns the schedules due at now: one ZRANGE BYSCORE.
func (s *Store) DueSchedules(ctx context.Context, now time.Time, limit int) ([]store.ScheduleKey, error) {
	return membersDue(ctx, s, "due schedules", s.dueKey(), now, limit, parseScheduleMember)
}

// claimFireScript. KEYS: schedule, due, fires, pending. ARGV: member, due
// ms (0: a fire now), next ms, fire JSON ("" for none), held-until ms, most
// fires kept. Returns -2 when not claimed, -1 when claimed with no fire,
// else the fire's number.
var claimFireScript = redis.NewScript(`
local h = redis.call('HMGET', KEYS[1], 'paused', 'next')
if not h[1] then return -2 end
if ARGV[2] ~= '0' then
  if h[1] == '1' or h[2] == '0' or h[2] ~= ARGV[2] then return -2 end
  redis.call('HSET', KEYS[1], 'next', ARGV[3])
  if ARGV[3] ~= '0' then redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1]) else redis.call('ZREM', KEYS[2], ARGV[1]) end
end
redis.call('HINCRBY', KEYS[1], 'v', 1)
if ARGV[4] == '' then return -1 end
local seq = redis.call('HINCRBY', KEYS[1], 'fires', 1)
redis.call('HSET', KEYS[3], seq, ARGV[4])
redis.call('ZADD', KEYS[4], ARGV[5], ARGV[1] .. '\n' .. seq)
local old = seq - tonumber(ARGV[6])
if old > 0 then
  redis.call('HDEL', KEYS[3], old)
  redis.call('ZREM', KEYS[4], ARGV[1] .. '\n' .. old)
end
return seq
`)

// ClaimFire claims one fire by compare-and-set on the next fire time, and
// records it, in one script.
func (s *Store) ClaimFire(ctx context.Context, c store.ScheduleClaim) (store.FireRecord, bool, error) {
	m := scheduleMember(c.User, c.ID)
	var fireJSON []byte
	var f store.FireRecord
	if c.Fire != nil {
		f = *c.Fire
		f.Started, f.Failure, f.HeldUntil = false, "", time.Time{}
		fireJSON, _ = json.Marshal(f)
	}
	held := c.Now.Add(c.Lease).UnixMilli()
	seq, err := claimFireScript.Run(ctx, s.rdb, []string{s.schedKey(m), s.dueKey(), s.firesKey(m), s.pendingKey()},
		m, unixMillis(c.Due), unixMillis(c.Next), fireJSON, held, store.MaxFiresKept).Int64()
	switch {
	case err != nil:
		return store.FireRecord{}, false, fmt.Errorf("store: claim fire: %w", err)
	case seq == -2:
		return store.FireRecord{}, false, nil
	case seq == -1:
		return store.FireRecord{}, true, nil
	}
	f.Seq, f.HeldUntil = seq, time.UnixMilli(held).UTC()
	return f, true, nil
}

// PendingFires returns the unstarted fires whose hold lapsed: one ZRANGE.
func (s *Store) PendingFires(ctx context.Context, now time.Time, limit int) ([]store.FireKey, error) {
	return membersDue(ctx, s, "pending fires", s.pendingKey(), now, limit, parsePendingMember)
}

// takeFireScript. KEYS: pending, fires. ARGV: pending member, now ms,
// held-until ms, fire number.
var takeFireScript = redis.NewScript(`
local held = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not held or tonumber(held) > tonumber(ARGV[2]) then return false end
local f = redis.call('HGET', KEYS[2], ARGV[4])
if not f then redis.call('ZREM', KEYS[1], ARGV[1]) return false end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
return f
`)

// TakeFire takes a pending fire whose hold lapsed: one script.
func (s *Store) TakeFire(ctx context.Context, key store.FireKey, now time.Time, lease time.Duration) (store.FireRecord, bool, error) {
	held := now.Add(lease).UnixMilli()
	raw, err := takeFireScript.Run(ctx, s.rdb, []string{s.pendingKey(), s.firesKey(scheduleMember(key.User, key.Schedule))},
		pendingMember(key), now.UnixMilli(), held, key.Seq).Text()
	if errors.Is(err, redis.Nil) {
		return store.FireRecord{}, false, nil
	}
	if err != nil {
		return store.FireRecord{}, false, fmt.Errorf("store: take fire: %w", err)
	}
	var f store.FireRecord
	if err := json.Unmarshal([]byte(raw), &f); err != nil {
		return store.FireRecord{}, false, fmt.Errorf("store: take fire: %w", err)
	}
	f.Seq, f.HeldUntil = key.Seq, time.UnixMilli(held).UTC()
	return f, true, nil
}

// fireStartedScript. KEYS: pending, fires. ARGV: pending member, fire
// number, the started fire's JSON. It writes only while the fire is
// pending: a started fire never changes again.
var fireStartedScript = redis.NewScript(`
if redis.call('ZREM', KEYS[1], ARGV[1]) == 1 then
  if redis.call('HEXISTS', KEYS[2], ARGV[2]) == 0 then return 0 end
  redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
  return 1
end
return redis.call('HEXISTS', KEYS[2], ARGV[2])
`)

// FireStarted records that a fire started: a read and one script.
func (s *Store) FireStarted(ctx context.Context, key store.FireKey, responseID, failure string) (bool, error) {
	fk := s.firesKey(scheduleMember(key.User, key.Schedule))
	raw, err := s.rdb.HGet(ctx, fk, strconv.FormatInt(key.Seq, 10)).Result()
	if errors.Is(err, redis.Nil) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("store: fire started: %w", err)
	}
	var f store.FireRecord
	if err := json.Unmarshal([]byte(raw), &f); err != nil {
		return false, fmt.Errorf("store: fire started: %w", err)
	}
	f.Started, f.Failure = true, failure
	if responseID != "" {
		f.ResponseID = responseID
	}
	b, _ := json.Marshal(f)
	n, err := fireStartedScript.Run(ctx, s.rdb, []string{s.pendingKey(), fk}, pendingMember(key), key.Seq, b).Int()
	if err != nil {
		return false, fmt.Errorf("store: fire started: %w", err)
	}
	return n == 1, nil
}

// ListFires returns a page of a schedule's fires, newest first: one HGET
// of the count and one HMGET of the page (fires are numbered without gaps).
func (s *Store) ListFires(ctx context.Context, user, id string, before int64, limit int) ([]store.FireRecord, error) {
	m := scheduleMember(user, id)
	last, err := s.rdb.HGet(ctx, s.schedKey(m), "fires").Int64()
	if errors.Is(err, redis.Nil) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("store: list fires: %w", err)
	}
	top := last
	if before >= 1 && before-1 < top {
		top = before - 1
	}
	if limit < 1 {
		limit = 1
	}
	low := max(top-int64(limit)+1, 1, last-store.MaxFiresKept+1)
	if top < low {
		return nil, nil
	}
	fields := make([]string, 0, top-low+1)
	for seq := top; seq >= low; seq-- {
		fields = append(fields, strconv.FormatInt(seq, 10))
	}
	vals, err := s.rdb.HMGet(ctx, s.firesKey(m), fields...).Result()
	if err != nil {
		return nil, fmt.Errorf("store: list fires: %w", err)
	}
	out := make([]store.FireRecord, 0, len(vals))
	for i, v := range vals {
		raw, ok := v.(string)
		if !ok {
			continue
		}
		var f store.FireRecord
		if json.Unmarshal([]byte(raw), &f) == nil {
			f.Seq = top - int64(i)
			out = append(out, f)
		}
	}
	return out, nil
}
