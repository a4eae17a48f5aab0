package redisstore

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/harnest/harnest/store"
)

// Per-user rate limits (store.Limits). Each user's keys share one hash tag,
// and every script touches one key, so they work on Redis Cluster too:
//
//	{l:user}:w:<name>:<window>   STRING requests counted in one fixed window
//	{l:user}:d:<UTC day>         HASH counter name -> count of that day
//	{l:user}:slots               ZSET holder -> end of its lease (Unix ms)

func (s *Store) limitsKey(user, part string) string {
	return s.prefix + "{l:" + escapeID(user) + "}:" + part
}

// windowScript counts one request when the window holds fewer than
// ARGV[1]: 1, or 0 when the window is spent (nothing is counted then).
var windowScript = redis.NewScript(`
local n = tonumber(redis.call('GET', KEYS[1]) or '0')
if n >= tonumber(ARGV[1]) then return 0 end
if redis.call('INCR', KEYS[1]) == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 1
`)

// TakeUserWindow counts one request in a user's fixed window, shared by
// every replica.
func (s *Store) TakeUserWindow(ctx context.Context, w store.UserWindow, now time.Time) (bool, time.Duration, error) {
	if w.Window < time.Millisecond {
		return false, 0, fmt.Errorf("store: a rate window must be at least a millisecond, not %s", w.Window)
	}
	index := now.UnixMilli() / w.Window.Milliseconds()
	key := s.limitsKey(w.User, "w:"+escapeID(w.Name)+":"+strconv.FormatInt(index, 10))
	ok, err := windowScript.Run(ctx, s.rdb, []string{key}, w.Limit, (2 * w.Window).Milliseconds()).Int()
	if err != nil {
		return false, 0, fmt.Errorf("store: rate window: %w", err)
	}
	if ok == 1 {
		return true, 0, nil
	}
	return false, time.UnixMilli((index + 1) * w.Window.Milliseconds()).Sub(now), nil
}

// AddUserDayCount adds to a user's counter of a UTC day within a limit
// (the router's count script: {value, added}).
func (s *Store) AddUserDayCount(ctx context.Context, user, name string, by, limit int64, now time.Time) (int64, bool, error) {
	key := s.limitsKey(user, "d:"+now.UTC().Format(time.DateOnly))
	res, err := routerCountScript.Run(ctx, s.rdb, []string{key}, name, by, limit, (48 * time.Hour).Milliseconds()).Int64Slice()
	if err == nil && len(res) != 2 {
		err = fmt.Errorf("the count script answered %v", res)
	}
	if err != nil {
		return 0, false, fmt.Errorf("store: daily count: %w", err)
	}
	return res[0], res[1] == 1, nil
}

// slotScript drops the slots whose lease ended by ARGV[2] (now, Unix ms),
// then gives ARGV[1] a slot until ARGV[3] when it holds one already or
// fewer than ARGV[4] are held: {held, taken}. The key lasts as long as its
// longest lease.
var slotScript = redis.NewScript(`
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[2])
local held = redis.call('ZCARD', KEYS[1])
local mine = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not mine and held >= tonumber(ARGV[4]) then return {held, 0} end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[5]) then redis.call('PEXPIRE', KEYS[1], ARGV[5]) end
return {redis.call('ZCARD', KEYS[1]), 1}
`)

// TakeUserSlot gives holder one of user's slots when fewer than limit are
// held.
func (s *Store) TakeUserSlot(ctx context.Context, user, holder string, limit int, lease time.Duration, now time.Time) (int, bool, error) {
	held, ok, err := s.runSlotScript(ctx, user, holder, int64(limit), lease, now)
	if err != nil {
		return 0, false, fmt.Errorf("store: take a response slot: %w", err)
	}
	return held, ok, nil
}

// RenewUserSlot holds holder's live slot until now+lease, or takes a
// lapsed one again when fewer than limit are held: the script of
// TakeUserSlot.
func (s *Store) RenewUserSlot(ctx context.Context, user, holder string, limit int, lease time.Duration, now time.Time) (bool, error) {
	_, ok, err := s.runSlotScript(ctx, user, holder, int64(limit), lease, now)
	if err != nil {
		return false, fmt.Errorf("store: renew a response slot: %w", err)
	}
	return ok, nil
}

func (s *Store) runSlotScript(ctx context.Context, user, holder string, limit int64, lease time.Duration, now time.Time) (int, bool, error) {
	if lease < time.Millisecond {
		return 0, false, fmt.Errorf("a slot's lease must be at least a millisecond, not %s", lease)
	}
	res, err := slotScript.Run(ctx, s.rdb, []string{s.limitsKey(user, "slots")},
		holder, now.UnixMilli(), now.Add(lease).UnixMilli(), limit, lease.Milliseconds()).Int64Slice()
	if err == nil && len(res) != 2 {
		err = fmt.Errorf("the slot script answered %v", res)
	}
	if err != nil {
		return 0, false, err
	}
	return int(res[0]), res[1] == 1, nil
}

// ReleaseUserSlot gives holder's slot back.
func (s *Store) ReleaseUserSlot(ctx context.Context, user, holder string) error {
	if err := s.rdb.ZRem(ctx, s.limitsKey(user, "slots"), holder).Err(); err != nil {
		return fmt.Errorf("store: give back a response slot: %w", err)
	}
	return nil
}
