package redisstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/harnest/harnest/store"

	"github.com/redis/go-redis/v9"
)

// The sessions' queues of responses (store.Queues). A session's queue is a
// list of response IDs under its tag (queue), its head first; a queued
// response has its receipt, request, webhook and event log under the same
// tag, as a begun one, and is registered in the run registry as a run of
// store.QueuedReplica, scored a receipt TTL ahead (no sweep takes it for
// lapsed), so that sweepers find the sessions whose queue waits.
//
// beginScript refuses a session whose queue key exists (a queue goes
// first); the key is dropped by the script that takes its last response.

// queue is the key of a session's queue of responses.
func (k sessionKeys) queue() string { return k.tag + ":Q" }

// escapeLua defines esc(id), escapeID in Lua, for keys the scripts make of
// a response ID they read (the same slot: the session's tag).
const escapeLua = `
local function esc(id)
  return (string.gsub(id, '[%%:{}]', function(c) return string.format('%%%02X', string.byte(c)) end))
end
`

// queueScript queues a response on a busy session (QueueResponse).
// KEYS: 1 meta, 2 lease, 3 queue, 4 receipt, 5 event log, 6 request, 7
// webhook; 8 the run registry where one server holds every key.
// ARGV: 1 the response ID, 2 its escaped form, 3 the bound (0: none), 4
// "1" for the head, 5 the receipt, 6 the receipt TTL in ms, 7 the request
// ("": none), 8 the webhook ("": none), 9 the event batch's score ("":
// no events), 10 its member, 11 the channel, 12 the registry's member, 13
// its score, 14 "1" to queue even on an idle session.
// It returns 1 when queued, 0 when the session is missing, -1 when it is
// idle, -2 when the queue is full.
var queueScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local n = redis.call('LLEN', KEYS[3])
if n == 0 and ARGV[14] ~= '1' and redis.call('EXISTS', KEYS[2]) == 0 then return -1 end
local bound = tonumber(ARGV[3])
if bound > 0 and n >= bound then return -2 end
if ARGV[4] == '1' then redis.call('LPUSH', KEYS[3], ARGV[1]) else redis.call('RPUSH', KEYS[3], ARGV[1]) end
redis.call('PEXPIRE', KEYS[3], ARGV[6])
redis.call('SET', KEYS[4], ARGV[5], 'PX', ARGV[6])
if ARGV[7] ~= '' then redis.call('SET', KEYS[6], ARGV[7], 'PX', ARGV[6]) end
if ARGV[8] ~= '' then redis.call('SET', KEYS[7], ARGV[8], 'PX', ARGV[6]) end
redis.call('HSET', KEYS[1], 'r:' .. ARGV[2], '')
local order = string.sub(KEYS[1], 1, -6) .. ':o'
if not redis.call('ZSCORE', order, ARGV[1]) then
  local last = redis.call('ZREVRANGE', order, 0, 0, 'WITHSCORES')
  redis.call('ZADD', order, (tonumber(last[2]) or 0) + 1, ARGV[1])
end
if ARGV[9] ~= '' then
  redis.call('ZADD', KEYS[5], ARGV[9], ARGV[10])
  redis.call('PEXPIRE', KEYS[5], ARGV[6])
  redis.call('PUBLISH', ARGV[11], ARGV[9])
end
if KEYS[8] then redis.call('ZADD', KEYS[8], ARGV[13], ARGV[12]) end
return 1
`)

// QueueResponse queues a response on a busy session in one script (one
// round trip): see store.Queues. On a Cluster the run is registered in a
// step of its own before the script, and forgotten again when the script
// refuses.
func (s *Store) QueueResponse(ctx context.Context, q store.Enqueue) error {
	k := s.sessionKeys(q.User, q.Session)
	member := runMember(q.User, q.Session, q.ResponseID, store.QueuedReplica)
	score := time.Now().Add(s.receiptTTL).UnixMilli()
	if s.clustered {
		if err := s.sendBookkeeping(ctx, func(p redis.Pipeliner) {
			p.ZAdd(ctx, s.runsKey(), redis.Z{Score: float64(score), Member: member})
		}); err != nil {
			return fmt.Errorf("store: queue response: register the run: %w", err)
		}
	}
	c := newScriptCall(queueScript, 21, 4)
	c.key(k.meta)
	c.key(k.lease)
	c.key(k.queue())
	c.key(k.receipt(q.ResponseID))
	c.key(k.events(q.ResponseID))
	c.key(k.request(q.ResponseID))
	c.key(k.webhook(q.ResponseID))
	if !s.clustered {
		c.key(s.runsKey())
	}
	c.str(q.ResponseID)
	c.str(escapeID(q.ResponseID))
	c.num(int64(max(q.Bound, 0)))
	if q.Front {
		c.str("1")
	} else {
		c.str("0")
	}
	c.bytes(q.Receipt)
	c.num(millis(s.receiptTTL))
	c.bytes(q.Request)
	c.str(q.Webhook)
	if len(q.Events) > 0 {
		c.num(int64(q.Events[len(q.Events)-1].Sequence))
		c.bytes(eventMember(q.Events))
	} else {
		c.str("")
		c.str("")
	}
	c.str(k.channel(q.ResponseID))
	c.str(member)
	c.num(score)
	if q.EvenIdle {
		c.str("1")
	} else {
		c.str("0")
	}
	n, err := s.runScript(ctx, c).Int64()
	if err != nil {
		return fmt.Errorf("store: queue response: %w", err)
	}
	if n == 1 {
		return nil
	}
	_ = s.sendBookkeeping(ctx, s.forgetRun(ctx, member)) // a leftover member is forgotten by a sweep
	switch n {
	case 0:
		return store.ErrSessionNotFound
	case -1:
		return store.ErrSessionIdle
	default:
		return store.ErrQueueFull
	}
}

// startQueuedScript hands the head of a session's queue to a replica
// (StartQueued).
// KEYS: 1 lease, 2 queue, 3 meta. ARGV: 1 the session's tag, 2 the lease in
// ms, 3 the receipt TTL in ms.
// It returns {} when the session is held, and otherwise {started ID ("":
// none), request, webhook, last sequence, dropped IDs...}.
var startQueuedScript = redis.NewScript(finalReceiptLua + escapeLua + `
if redis.call('EXISTS', KEYS[1]) == 1 then return {} end
local out = {'', '', '', '-1'}
local live = redis.call('EXISTS', KEYS[3]) == 1
while true do
  local id = redis.call('LPOP', KEYS[2])
  if not id then return out end
  local e = esc(id)
  local receipt, log = ARGV[1] .. ':r:' .. e, ARGV[1] .. ':l:' .. e
  if live and redis.call('EXISTS', receipt) == 1 and not finished(receipt, log) then
    redis.call('SET', KEYS[1], id, 'PX', ARGV[2])
    local rc = string.gsub(redis.call('GET', receipt), '"status":"queued"', '"status":"in_progress"', 1)
    redis.call('SET', receipt, rc, 'PX', ARGV[3])
    local last = redis.call('ZRANGE', log, -1, -1, 'WITHSCORES')
    out[1] = id
    out[2] = redis.call('GET', ARGV[1] .. ':q:' .. e) or ''
    out[3] = redis.call('GET', ARGV[1] .. ':h:' .. e) or ''
    out[4] = last[2] or '-1'
    return out
  end
  out[#out + 1] = id
end
`)

// StartQueued hands the head of the session's queue to replica in one
// script, then registers it as the replica's run and forgets the queued
// registrations of it and of the responses dropped before it, in a
// pipeline of their own (a crash in between leaves queued registrations
// that a sweep forgets, and the run unregistered until its first lease
// renewal): see store.Queues.
func (s *Store) StartQueued(ctx context.Context, user, session, replica string, lease time.Duration) (store.QueuedRun, bool, error) {
	k := s.sessionKeys(user, session)
	c := newScriptCall(startQueuedScript, 4, 2)
	c.key(k.lease)
	c.key(k.queue())
	c.key(k.meta)
	c.str(k.tag)
	c.num(millis(lease))
	c.num(millis(s.receiptTTL))
	reply, err := s.runScript(ctx, c).Slice()
	if err != nil {
		return store.QueuedRun{}, false, fmt.Errorf("store: start a queued response: %w", err)
	}
	if len(reply) == 0 {
		return store.QueuedRun{}, false, nil
	}
	if len(reply) < 4 {
		return store.QueuedRun{}, false, fmt.Errorf("store: start a queued response: unexpected reply %v", reply)
	}
	id, _ := reply[0].(string)
	request, _ := reply[1].(string)
	webhook, _ := reply[2].(string)
	lastText, _ := reply[3].(string)
	var steps []func(redis.Pipeliner)
	for _, d := range reply[4:] {
		if dropped, ok := d.(string); ok {
			member := runMember(user, session, dropped, store.QueuedReplica)
			steps = append(steps, func(p redis.Pipeliner) { p.ZRem(ctx, s.runsKey(), member) })
		}
	}
	if id != "" {
		queued := runMember(user, session, id, store.QueuedReplica)
		running := runMember(user, session, id, replica)
		score := float64(time.Now().Add(lease).UnixMilli())
		steps = append(steps, func(p redis.Pipeliner) {
			p.ZRem(ctx, s.runsKey(), queued)
			p.ZAdd(ctx, s.runsKey(), redis.Z{Score: score, Member: running})
		})
	}
	if len(steps) > 0 {
		if err := s.pipelined(ctx, func(p redis.Pipeliner) {
			for _, step := range steps {
				step(p)
			}
		}); err != nil && id == "" {
			return store.QueuedRun{}, false, fmt.Errorf("store: start a queued response: forget dropped runs: %w", err)
		}
	}
	if id == "" {
		return store.QueuedRun{}, false, nil
	}
	last, err := strconv.ParseFloat(lastText, 64)
	if err != nil {
		return store.QueuedRun{}, false, fmt.Errorf("store: start a queued response: the log's last sequence %q is not a number", lastText)
	}
	run := store.QueuedRun{ResponseID: id, Webhook: webhook, LastSequence: int(last)}
	if request != "" {
		run.Request = []byte(request)
	}
	return run, true, nil
}

// cancelQueuedScript takes a queued response out of its queue and writes
// its final receipt and events (CancelQueued).
// KEYS: 1 queue, 2 receipt, 3 event log, 4 webhook. ARGV: 1 the response
// ID, 2 the receipt, 3 the receipt TTL in ms, 4 the event batch's score
// ("": none), 5 its member, 6 the channel.
// It returns {1, webhook ("": none)} when it was queued, {0} otherwise
// (nothing written).
var cancelQueuedScript = redis.NewScript(`
if redis.call('LREM', KEYS[1], 0, ARGV[1]) == 0 then return {0} end
redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])
if ARGV[4] ~= '' then
  redis.call('ZADD', KEYS[3], ARGV[4], ARGV[5])
  redis.call('PEXPIRE', KEYS[3], ARGV[3])
  redis.call('PUBLISH', ARGV[6], ARGV[4])
else
  redis.call('PUBLISH', ARGV[6], -1)
end
return {1, redis.call('GET', KEYS[4]) or ''}
`)

// CancelQueued takes a queued response out of its queue in one script,
// then forgets its queued registration: see store.Queues.
func (s *Store) CancelQueued(ctx context.Context, user, session, responseID string, receipt []byte, events []store.Event) (string, bool, error) {
	k := s.sessionKeys(user, session)
	c := newScriptCall(cancelQueuedScript, 7, 2)
	c.key(k.queue())
	c.key(k.receipt(responseID))
	c.key(k.events(responseID))
	c.key(k.webhook(responseID))
	c.str(responseID)
	c.bytes(receipt)
	c.num(millis(s.receiptTTL))
	if len(events) > 0 {
		c.num(int64(events[len(events)-1].Sequence))
		c.bytes(eventMember(events))
	} else {
		c.str("")
		c.str("")
	}
	c.str(k.channel(responseID))
	reply, err := s.runScript(ctx, c).Slice()
	if err != nil {
		return "", false, fmt.Errorf("store: cancel a queued response: %w", err)
	}
	if n, _ := reply[0].(int64); n == 0 || len(reply) < 2 {
		return "", false, nil
	}
	webhook, _ := reply[1].(string)
	member := runMember(user, session, responseID, store.QueuedReplica)
	_ = s.rdb.ZRem(ctx, s.runsKey(), member).Err() // a leftover is forgotten by a sweep
	return webhook, true, nil
}

// QueuedResponses reads up to limit IDs of the session's queue and its
// length in one round trip.
func (s *Store) QueuedResponses(ctx context.Context, user, session string, limit int) ([]string, int, error) {
	k := s.sessionKeys(user, session)
	var ids *redis.StringSliceCmd
	var n *redis.IntCmd
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		if limit > 0 {
			ids = p.LRange(ctx, k.queue(), 0, int64(limit-1))
		}
		n = p.LLen(ctx, k.queue())
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, 0, fmt.Errorf("store: read the session's queue: %w", err)
	}
	var out []string
	if ids != nil {
		out = ids.Val()
	}
	return out, int(n.Val()), nil
}
