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

	"github.com/harnest/harnest/runtime/store"
)

// The outbox is split into outboxShards slots by user, so that one master
// of a Cluster does not carry it all; everything of one user lives in one
// shard, under the hash tag {ob:<shard>}:
//
//	{ob:N}:d:<id>            HASH   u, k (user, key), kind, url, h (headers JSON),
//	                                b (body), a (attempts), n (next attempt, ms),
//	                                e (last error), c (the claim)
//	{ob:N}:q:<user>:<key>    LIST   the queue's delivery IDs, oldest first
//	{ob:N}:due               ZSET   <user>:<key> of every non-empty queue, scored
//	                                by when its head is claimable (its next
//	                                attempt, or the end of its claim's lease)
//	{ob:N}:u:<user>          ZSET   the user's delivery IDs by expiry (ms), to
//	                                bound them
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

// outboxEnqueueScript appends a delivery. KEYS: due, queue, delivery, user set.
// ARGV: now (ms), max per user, TTL (ms), queue member, next attempt (ms),
// user, key, kind, url, headers, body, escaped ID, ID. Returns 1, or 0 when
// the user's outbox is full. Lists and sets hold escaped IDs.
var outboxEnqueueScript = redis.NewScript(`
redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', ARGV[1])
if tonumber(ARGV[2]) > 0 and redis.call('ZCARD', KEYS[4]) >= tonumber(ARGV[2]) then return 0 end
redis.call('HSET', KEYS[3], 'u', ARGV[6], 'k', ARGV[7], 'kind', ARGV[8], 'url', ARGV[9], 'h', ARGV[10],
  'b', ARGV[11], 'a', 0, 'n', ARGV[5], 'id', ARGV[13])
redis.call('PEXPIRE', KEYS[3], ARGV[3])
if redis.call('RPUSH', KEYS[2], ARGV[12]) == 1 then redis.call('ZADD', KEYS[1], ARGV[5], ARGV[4]) end
redis.call('PEXPIRE', KEYS[2], ARGV[3])
redis.call('ZADD', KEYS[4], tonumber(ARGV[1]) + tonumber(ARGV[3]), ARGV[12])
redis.call('PEXPIRE', KEYS[4], ARGV[3])
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
	keys := []string{tag + ":due", tag + ":q:" + member, tag + ":d:" + escapeID(d.ID), tag + ":u:" + escapeID(d.User)}
	ok, err := outboxEnqueueScript.Run(ctx, s.rdb, keys, now.UnixMilli(), maxPerUser, s.receiptTTL.Milliseconds(), member, next,
		d.User, d.Key, d.Kind, d.URL, headers, d.Body, escapeID(d.ID), d.ID).Int()
	if err != nil {
		return "", fmt.Errorf("store: enqueue delivery: %w", err)
	}
	if ok == 0 {
		return "", store.ErrOutboxFull
	}
	return d.ID, nil
}

// outboxClaimScript claims the due heads of a shard's queues. KEYS: due. ARGV:
// now (ms), lease end (ms), limit, the shard's tag, the claim's prefix.
// Returns {id, claim, u, k, kind, url, h, b, a, n, e} per claim.
var outboxClaimScript = redis.NewScript(`
local out = {}
local queues = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[3])
for i, q in ipairs(queues) do
  local qkey = ARGV[4] .. ':q:' .. q
  while true do
    local id = redis.call('LINDEX', qkey, 0)
    if not id then redis.call('ZREM', KEYS[1], q); break end
    local dkey = ARGV[4] .. ':d:' .. id
    if redis.call('EXISTS', dkey) == 1 then
      local claim = ARGV[5] .. ':' .. i
      redis.call('HINCRBY', dkey, 'a', 1)
      redis.call('HSET', dkey, 'c', claim)
      redis.call('ZADD', KEYS[1], ARGV[2], q)
      local f = redis.call('HMGET', dkey, 'u', 'k', 'kind', 'url', 'h', 'b', 'a', 'n', 'e', 'id')
      table.insert(out, {f[10], claim, f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[9] or ''})
      break
    end
    redis.call('LPOP', qkey)
  end
end
return out
`)

// ClaimDeliveries claims due deliveries: one pipelined round trip finds
// the shards with a due queue (all an idle outbox costs), then one script
// per such shard, from a random one on, until limit are claimed.
func (s *Store) ClaimDeliveries(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]store.Delivery, error) {
	due, err := s.dueShards(ctx, now)
	if err != nil {
		return nil, err
	}
	var out []store.Delivery
	first := mrand.IntN(outboxShards)
	for i := 0; i < outboxShards && len(out) < limit; i++ {
		shard := (first + i) % outboxShards
		if !due[shard] {
			continue
		}
		tag := s.outboxShardTag(shard)
		res, err := outboxClaimScript.Run(ctx, s.rdb, []string{tag + ":due"}, now.UnixMilli(), now.Add(lease).UnixMilli(),
			limit-len(out), tag, "clm_"+rand.Text()).Slice()
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
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i := range cmds {
			cmds[i] = p.ZRangeByScore(ctx, s.outboxShardTag(i)+":due",
				&redis.ZRangeBy{Min: "-inf", Max: strconv.FormatInt(now.UnixMilli(), 10), Count: 1})
		}
		return nil
	})
	if err != nil {
		return due, fmt.Errorf("store: find due deliveries: %w", err)
	}
	for i, c := range cmds {
		due[i] = len(c.Val()) > 0
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

// outboxCompleteScript removes a claimed head and makes the next live head due.
// KEYS: due, queue, delivery, user set. ARGV: escaped ID, claim, queue
// member, the shard's tag. Returns 1, or 0 when the claim was lost.
var outboxCompleteScript = redis.NewScript(`
if redis.call('HGET', KEYS[3], 'c') ~= ARGV[2] then return 0 end
if redis.call('LINDEX', KEYS[2], 0) ~= ARGV[1] then return 0 end
redis.call('LPOP', KEYS[2])
redis.call('DEL', KEYS[3])
redis.call('ZREM', KEYS[4], ARGV[1])
while true do
  local id = redis.call('LINDEX', KEYS[2], 0)
  if not id then redis.call('ZREM', KEYS[1], ARGV[3]); break end
  local n = redis.call('HGET', ARGV[4] .. ':d:' .. id, 'n')
  if n then redis.call('ZADD', KEYS[1], n, ARGV[3]); break end
  redis.call('LPOP', KEYS[2])
end
return 1
`)

// CompleteDelivery removes a claimed delivery: one round trip.
func (s *Store) CompleteDelivery(ctx context.Context, d store.Delivery) (bool, error) {
	if d.Claim == "" {
		return false, nil
	}
	tag, member := s.outboxTag(d.User), outboxMember(d.User, d.Key)
	keys := []string{tag + ":due", tag + ":q:" + member, tag + ":d:" + escapeID(d.ID), tag + ":u:" + escapeID(d.User)}
	ok, err := outboxCompleteScript.Run(ctx, s.rdb, keys, escapeID(d.ID), d.Claim, member, tag).Int()
	if err != nil {
		return false, fmt.Errorf("store: complete delivery: %w", err)
	}
	return ok == 1, nil
}

// outboxRetryScript gives a claimed head back. KEYS: due, queue, delivery.
// ARGV: escaped ID, claim, queue member, next attempt (ms), last error. Returns 1,
// or 0 when the claim was lost.
var outboxRetryScript = redis.NewScript(`
if redis.call('HGET', KEYS[3], 'c') ~= ARGV[2] then return 0 end
if redis.call('LINDEX', KEYS[2], 0) ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[3], 'n', ARGV[4], 'e', ARGV[5])
redis.call('HDEL', KEYS[3], 'c')
redis.call('ZADD', KEYS[1], ARGV[4], ARGV[3])
return 1
`)

// RetryDelivery gives a claimed delivery back, due at at: one round trip.
func (s *Store) RetryDelivery(ctx context.Context, d store.Delivery, at time.Time, lastError string) (bool, error) {
	if d.Claim == "" {
		return false, nil
	}
	tag, member := s.outboxTag(d.User), outboxMember(d.User, d.Key)
	keys := []string{tag + ":due", tag + ":q:" + member, tag + ":d:" + escapeID(d.ID)}
	ok, err := outboxRetryScript.Run(ctx, s.rdb, keys, escapeID(d.ID), d.Claim, member, at.UnixMilli(), lastError).Int()
	if err != nil {
		return false, fmt.Errorf("store: retry delivery: %w", err)
	}
	return ok == 1, nil
}
