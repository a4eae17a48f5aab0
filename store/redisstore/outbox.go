package redisstore

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"hash/fnv"
	mrand "math/rand/v2"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/harnest/harnest/store"
)

// The outbox is split into outboxShards slots by user, so that one master
// of a Cluster does not carry it all; everything of one user lives in one
// shard, under the hash tag {ob:<shard>}:
//
//	{ob:N}:d:<id>            HASH   u, k (user, key), kind, url, h (headers JSON),
//	                                b (body), a (attempts), n (next attempt, ms),
//	                                e (last error), c (the claim)
//	{ob:N}:q:<user>:<key>    LIST   the queue's delivery IDs, oldest first
//	{ob:N}:uq:<user>         ZSET   <user>:<key> of the user's non-empty queues,
//	                                scored by when its head is claimable (its
//	                                next attempt, or the end of its claim's lease)
//	{ob:N}:users             ZSET   <user> of every user with a non-empty queue,
//	                                scored by their soonest queue's score
//	{ob:N}:u:<user>          ZSET   the user's delivery IDs by expiry (ms), to
//	                                bound them
//
// A claim goes through the users soonest first and takes each one's due
// queues within their share (store.ClaimShare): a user with thousands of
// due queues costs a claim no more than their share. (Before users were
// indexed, {ob:N}:due held every queue; claims move what is left of it
// into the index.)
//
// A delivery and its queue last the receipt TTL after the last enqueue;
// a head whose hash expired is dropped when it is met.

const outboxShards = 16

func (s *Store) outboxTag(user string) string {
	h := fnv.New32a()
	_, _ = h.Write([]byte(user))
	return s.outboxShardTag(int(h.Sum32() % outboxShards))
}

func (s *Store) outboxShardTag(shard int) string {
	return s.prefix + "{ob:" + strconv.Itoa(shard) + "}"
}

// outboxMember names a queue inside its shard.
func outboxMember(user, key string) string { return escapeID(user) + ":" + escapeID(key) }

// outboxLua defines, for the scripts below (ARGV[1] is the shard's tag),
// setDue(queue, score) and unsetDue(queue), which keep a queue's score
// among its user's queues and the user's among the users; and settle(user),
// which scores a user by their soonest queue (or drops them).
const outboxLua = `
local T = ARGV[1]
local function settle(u)
  local first = redis.call('ZRANGE', T .. ':uq:' .. u, 0, 0, 'WITHSCORES')
  if first[2] then redis.call('ZADD', T .. ':users', first[2], u) else redis.call('ZREM', T .. ':users', u) end
end
local function queueUser(q) return string.match(q, '^([^:]*)') end
local function setDue(q, score)
  local u = queueUser(q)
  redis.call('ZADD', T .. ':uq:' .. u, score, q)
  settle(u)
end
local function unsetDue(q)
  local u = queueUser(q)
  redis.call('ZREM', T .. ':uq:' .. u, q)
  settle(u)
end
`

// outboxEnqueueScript appends a delivery. KEYS: queue, delivery, user set.
// ARGV: the shard's tag, now (ms), max per user, TTL (ms), queue member,
// next attempt (ms), user, key, kind, url, headers, body, escaped ID, ID,
// escaped user. Returns 1, or 0 when the user's outbox is full. Lists and
// sets hold escaped IDs.
var outboxEnqueueScript = redis.NewScript(outboxLua + `
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', ARGV[2])
if tonumber(ARGV[3]) > 0 and redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[3]) then return 0 end
redis.call('HSET', KEYS[2], 'u', ARGV[7], 'k', ARGV[8], 'kind', ARGV[9], 'url', ARGV[10], 'h', ARGV[11],
  'b', ARGV[12], 'a', 0, 'n', ARGV[6], 'id', ARGV[14])
redis.call('PEXPIRE', KEYS[2], ARGV[4])
if redis.call('RPUSH', KEYS[1], ARGV[13]) == 1 then setDue(ARGV[5], ARGV[6]) end
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('PEXPIRE', T .. ':uq:' .. ARGV[15], ARGV[4])
redis.call('ZADD', KEYS[3], tonumber(ARGV[2]) + tonumber(ARGV[4]), ARGV[13])
redis.call('PEXPIRE', KEYS[3], ARGV[4])
return 1
`)

// EnqueueDelivery appends a delivery to its queue: one round trip.
func (s *Store) EnqueueDelivery(ctx context.Context, d store.Delivery, maxPerUser int, now time.Time) (string, error) {
	if d.ID == "" {
		d.ID = "dlv_" + rand.Text()
	}
	next := max(d.NextAttempt.UnixMilli(), now.UnixMilli())
	headers, err := json.Marshal(d.Headers)
	if err != nil {
		return "", fmt.Errorf("store: encode delivery headers: %w", err)
	}
	tag := s.outboxTag(d.User)
	member := outboxMember(d.User, d.Key)
	keys := []string{tag + ":q:" + member, tag + ":d:" + escapeID(d.ID), tag + ":u:" + escapeID(d.User)}
	ok, err := outboxEnqueueScript.Run(ctx, s.rdb, keys, tag, now.UnixMilli(), maxPerUser, s.receiptTTL.Milliseconds(), member, next,
		d.User, d.Key, d.Kind, d.URL, headers, d.Body, escapeID(d.ID), d.ID, escapeID(d.User)).Int()
	if err != nil {
		return "", fmt.Errorf("store: enqueue delivery: %w", err)
	}
	if ok == 0 {
		return "", store.ErrOutboxFull
	}
	return d.ID, nil
}

// outboxClaimScript claims the due heads of a shard's queues, users
// soonest first, each within their share. KEYS: users (the others are
// under the same tag). ARGV: the shard's tag, now (ms), lease end (ms), limit,
// the claim's prefix, the most deliveries of one user (0: no bound), then
// pairs of an escaped user and the deliveries they hold already. Returns
// {id, claim, u, k, kind, url, h, b, a, n, e} per claim.
var outboxClaimScript = redis.NewScript(outboxLua + `
local old = redis.call('ZRANGE', T .. ':due', 0, 99, 'WITHSCORES')
for i = 1, #old, 2 do
  setDue(old[i], old[i + 1])
  redis.call('ZREM', T .. ':due', old[i])
end
local limit, perUser = tonumber(ARGV[4]), tonumber(ARGV[6])
local held, nheld = {}, 0
for i = 7, #ARGV, 2 do
  held[ARGV[i]] = tonumber(ARGV[i + 1])
  nheld = nheld + 1
end
local out = {}
-- Users at their share are among those held: past them, limit users
-- with room are met, if there are that many.
local users = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[2], 'LIMIT', 0, limit + nheld)
for _, u in ipairs(users) do
  if #out >= limit then break end
  local room = limit - #out
  if perUser > 0 then room = math.min(room, perUser - (held[u] or 0)) end
  if room > 0 then
    local uq = T .. ':uq:' .. u
    for _, q in ipairs(redis.call('ZRANGEBYSCORE', uq, '-inf', ARGV[2], 'LIMIT', 0, room)) do
      local qkey = T .. ':q:' .. q
      while true do
        local id = redis.call('LINDEX', qkey, 0)
        if not id then redis.call('ZREM', uq, q); break end
        local dkey = T .. ':d:' .. id
        if redis.call('EXISTS', dkey) == 1 then
          local claim = ARGV[5] .. ':' .. (#out + 1)
          redis.call('HINCRBY', dkey, 'a', 1)
          redis.call('HSET', dkey, 'c', claim)
          redis.call('ZADD', uq, ARGV[3], q)
          local f = redis.call('HMGET', dkey, 'u', 'k', 'kind', 'url', 'h', 'b', 'a', 'n', 'e', 'id')
          table.insert(out, {f[10], claim, f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[9] or ''})
          break
        end
        redis.call('LPOP', qkey)
      end
    end
    settle(u)
  end
end
return out
`)

// ClaimDeliveries claims due deliveries: one pipelined round trip finds
// the shards with a due user (all an idle outbox costs), then one script
// per such shard, from a random one on, until limit are claimed. A user
// lives in one shard, so the share holds across shards.
func (s *Store) ClaimDeliveries(ctx context.Context, now time.Time, lease time.Duration, limit int, share store.ClaimShare) ([]store.Delivery, error) {
	due, err := s.dueShards(ctx, now)
	if err != nil {
		return nil, err
	}
	var held []any
	if share.PerUser > 0 {
		for u, n := range share.Held {
			if n > 0 {
				held = append(held, escapeID(u), n)
			}
		}
	}
	var out []store.Delivery
	first := mrand.IntN(outboxShards)
	for i := 0; i < outboxShards && len(out) < limit; i++ {
		shard := (first + i) % outboxShards
		if !due[shard] {
			continue
		}
		tag := s.outboxShardTag(shard)
		args := append([]any{tag, now.UnixMilli(), now.Add(lease).UnixMilli(), limit - len(out), "clm_" + rand.Text(), max(share.PerUser, 0)}, held...)
		res, err := outboxClaimScript.Run(ctx, s.rdb, []string{tag + ":users"}, args...).Slice()
		if err != nil {
			return out, fmt.Errorf("store: claim deliveries: %w", err)
		}
		for _, r := range res {
			d, err := deliveryFrom(r)
			if err != nil {
				return out, err
			}
			out = append(out, d)
		}
	}
	return out, nil
}

// dueShards reports which shards have a queue due at now.
func (s *Store) dueShards(ctx context.Context, now time.Time) ([outboxShards]bool, error) {
	var due [outboxShards]bool
	var cmds [outboxShards]*redis.StringSliceCmd
	var unindexed [outboxShards]*redis.IntCmd // queues from before users were indexed
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i := range cmds {
			cmds[i] = p.ZRangeByScore(ctx, s.outboxShardTag(i)+":users",
				&redis.ZRangeBy{Min: "-inf", Max: strconv.FormatInt(now.UnixMilli(), 10), Count: 1})
			unindexed[i] = p.Exists(ctx, s.outboxShardTag(i)+":due")
		}
		return nil
	})
	if err != nil {
		return due, fmt.Errorf("store: find due deliveries: %w", err)
	}
	for i, c := range cmds {
		due[i] = len(c.Val()) > 0 || unindexed[i].Val() > 0
	}
	return due, nil
}

// deliveryFrom reads one reply of outboxClaimScript.
func deliveryFrom(r any) (store.Delivery, error) {
	f, ok := r.([]any)
	if !ok || len(f) != 11 {
		return store.Delivery{}, fmt.Errorf("store: claim deliveries: unexpected reply %v", r)
	}
	str := func(v any) string { s, _ := v.(string); return s }
	d := store.Delivery{ID: str(f[0]), Claim: str(f[1]), User: str(f[2]), Key: str(f[3]), Kind: str(f[4]),
		URL: str(f[5]), Body: []byte(str(f[7])), LastError: str(f[10])}
	if h := str(f[6]); h != "" && h != "null" {
		if err := json.Unmarshal([]byte(h), &d.Headers); err != nil {
			return d, fmt.Errorf("store: delivery %s has unreadable headers: %w", d.ID, err)
		}
	}
	d.Attempts, _ = strconv.Atoi(str(f[8]))
	if ms, err := strconv.ParseInt(str(f[9]), 10, 64); err == nil {
		d.NextAttempt = time.UnixMilli(ms)
	}
	return d, nil
}

// outboxCompleteScript removes a claimed head and makes the next live head
// due. KEYS: queue, delivery, user set. ARGV: the shard's tag, escaped ID,
// claim, queue member. Returns 1, or 0 when the claim was lost.
var outboxCompleteScript = redis.NewScript(outboxLua + `
if redis.call('HGET', KEYS[2], 'c') ~= ARGV[3] then return 0 end
if redis.call('LINDEX', KEYS[1], 0) ~= ARGV[2] then return 0 end
redis.call('LPOP', KEYS[1])
redis.call('DEL', KEYS[2])
redis.call('ZREM', KEYS[3], ARGV[2])
while true do
  local id = redis.call('LINDEX', KEYS[1], 0)
  if not id then unsetDue(ARGV[4]); break end
  local n = redis.call('HGET', T .. ':d:' .. id, 'n')
  if n then setDue(ARGV[4], n); break end
  redis.call('LPOP', KEYS[1])
end
return 1
`)

// CompleteDelivery removes a claimed delivery: one round trip.
func (s *Store) CompleteDelivery(ctx context.Context, d store.Delivery) (bool, error) {
	if d.Claim == "" {
		return false, nil
	}
	tag, member := s.outboxTag(d.User), outboxMember(d.User, d.Key)
	keys := []string{tag + ":q:" + member, tag + ":d:" + escapeID(d.ID), tag + ":u:" + escapeID(d.User)}
	ok, err := outboxCompleteScript.Run(ctx, s.rdb, keys, tag, escapeID(d.ID), d.Claim, member).Int()
	if err != nil {
		return false, fmt.Errorf("store: complete delivery: %w", err)
	}
	return ok == 1, nil
}

// outboxRetryScript gives a claimed head back, due at a time. KEYS: queue,
// delivery. ARGV: the shard's tag, escaped ID, claim, queue member, next
// attempt (ms), last error, and "1" when the attempt was not made (its
// count is taken back, the last error kept). Returns 1, or 0 when the
// claim was lost.
var outboxRetryScript = redis.NewScript(outboxLua + `
if redis.call('HGET', KEYS[2], 'c') ~= ARGV[3] then return 0 end
if redis.call('LINDEX', KEYS[1], 0) ~= ARGV[2] then return 0 end
if ARGV[7] == '1' then
  redis.call('HINCRBY', KEYS[2], 'a', -1)
  redis.call('HSET', KEYS[2], 'n', ARGV[5])
else
  redis.call('HSET', KEYS[2], 'n', ARGV[5], 'e', ARGV[6])
end
redis.call('HDEL', KEYS[2], 'c')
setDue(ARGV[4], ARGV[5])
return 1
`)

// RetryDelivery gives a claimed delivery back, due at at: one round trip.
func (s *Store) RetryDelivery(ctx context.Context, d store.Delivery, at time.Time, lastError string) (bool, error) {
	return s.giveBack(ctx, d, at, lastError, false)
}

// ReleaseDelivery gives a claimed delivery back unsent, due at at, its
// attempt not counted: one round trip.
func (s *Store) ReleaseDelivery(ctx context.Context, d store.Delivery, at time.Time) (bool, error) {
	return s.giveBack(ctx, d, at, "", true)
}

func (s *Store) giveBack(ctx context.Context, d store.Delivery, at time.Time, lastError string, unsent bool) (bool, error) {
	if d.Claim == "" {
		return false, nil
	}
	tag, member := s.outboxTag(d.User), outboxMember(d.User, d.Key)
	keys := []string{tag + ":q:" + member, tag + ":d:" + escapeID(d.ID)}
	flag := "0"
	if unsent {
		flag = "1"
	}
	ok, err := outboxRetryScript.Run(ctx, s.rdb, keys, tag, escapeID(d.ID), d.Claim, member, at.UnixMilli(), lastError, flag).Int()
	if err != nil {
		return false, fmt.Errorf("store: give back a delivery: %w", err)
	}
	return ok == 1, nil
}
