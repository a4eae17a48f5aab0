package redisstore

import (
	"context"
	"fmt"
	"time"

	"github.com/harnest/harnest/store"

	"github.com/redis/go-redis/v9"
)

// commitScript writes one step of a response, atomically, or refuses and
// writes nothing (see CommitResponse).
//
// KEYS: 1 lease, 2 meta, 3 receipt, 4 state, 5 events, 6 the older
// form's transcript (transcript.go), 7 the run's epoch (keys.go); then,
// in this order and only when used: the wait's record and the session's
// waits (a step with a wait), the user's wait index entry (a wait, where
// one server holds every key), the run registry (a release, where one
// server holds every key), the response's steers (a release), the user's
// and everyone's usage of the day (a release with usage, where one server
// holds every key: usage.go).
//
// ARGV, as commitCall writes them: 1 the response ID, 2 now, 3 the
// receipt, 4 its TTL in ms, 5 "1" to release the lease, 6 the number of
// state fields, 7 the number of messages; the event batch (events.go): 8
// its score ("" for no events), 9 the score below which the log is trimmed
// ("" for none), 10 its member, 11 the channel to publish on, 12 its last
// sequence; the wait: 13 its escaped ID ("" for no wait), 14 kind, 15
// response ID, 16 expiry (Unix ms), 17 after sequence, 18 replica, 19 TTL
// in ms, 20 now (Unix ms), 21 its entry's score in the session's waits, 22
// "1" when a wait index key is given, 23 the session ID it holds; 24 the
// run's member when the registry key is given; 25 the writer's epoch; 26
// the number of usage fields (0: none); then the state's fields and
// values, then the messages, then the usage's TTL in ms and its fields
// and counts (usage.go).
//
// It returns 1 when the step is written, 0 when the lease is lost (another
// response holds it, or the session is gone), -1 when the receipt is
// final and -2 when the writer's epoch is not the run's (fenced).
var commitScript = redis.NewScript(finalReceiptLua + fencedLua + `
local key = 7
local waitRecord, waits, waitIndex, runs
if ARGV[13] ~= '' then
  waitRecord, waits, key = KEYS[8], KEYS[9], 9
  if ARGV[22] == '1' then key = key + 1; waitIndex = KEYS[key] end
end
if ARGV[24] ~= '' then key = key + 1; runs = KEYS[key] end
-- A step that releases names the response's kept steers last: it answers
-- 2 when some are left (nobody took them).
local steers
if ARGV[5] == '1' then steers = KEYS[key + 1] end
local usage = tonumber(ARGV[26])
if fenced(KEYS[7], ARGV[25]) then return -2 end
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then return 0 end
-- The lease lapsed: a sweeper may have made the receipt final, or the
-- response was written in one step.
if not holder and finished(KEYS[3], KEYS[5]) then return -1 end
-- Every session's meta holds msgs: only without it is EXISTS asked.
local length = redis.call('HGET', KEYS[2], 'msgs')
if not length and redis.call('EXISTS', KEYS[2]) == 0 then return 0 end
local fields, messages = tonumber(ARGV[6]), tonumber(ARGV[7])
local first = 27
-- HSET and ZADD take many pairs, in chunks: unpack is bounded by Lua's stack.
for i = first, first + 2 * fields - 1, 200 do
  redis.call('HSET', KEYS[4], unpack(ARGV, i, math.min(i + 199, first + 2 * fields - 1)))
end
if ARGV[8] ~= '' then
  redis.call('ZADD', KEYS[5], ARGV[8], ARGV[10])
  if ARGV[9] ~= '' then redis.call('ZREMRANGEBYSCORE', KEYS[5], '-inf', ARGV[9]) end
  redis.call('PEXPIRE', KEYS[5], ARGV[4])
end
local offset = tonumber(length) or 0
if messages > 0 then
  -- The transcript is in meta (transcript.go), or in the sorted set of a
  -- session made before.
  local m, older = first + 2 * fields, redis.call('EXISTS', KEYS[6]) == 1
  for from = 0, messages - 1, 100 do
    local args = {}
    for i = from, math.min(from + 99, messages - 1) do
      if older then
        args[#args + 1] = offset + i
      else
        args[#args + 1] = 'm:' .. (offset + i)
      end
      args[#args + 1] = ARGV[m + i]
    end
    if older then redis.call('ZADD', KEYS[6], unpack(args)) else redis.call('HSET', KEYS[2], unpack(args)) end
  end
end
if messages > 0 then
  redis.call('HSET', KEYS[2], 'msgs', offset + messages, 'updatedAt', ARGV[2])
elseif fields > 0 then
  redis.call('HSET', KEYS[2], 'updatedAt', ARGV[2])
end
redis.call('SET', KEYS[3], ARGV[3], 'PX', ARGV[4])
-- A claimed run's epoch lasts as long as its receipt.
if ARGV[25] ~= '1' then redis.call('PEXPIRE', KEYS[7], ARGV[4]) end
if waitRecord then
  redis.call('HSET', waitRecord, 'kind', ARGV[14], 'responseId', ARGV[15], 'status', 'pending',
    'expiresAt', ARGV[16], 'after', ARGV[17], 'replica', ARGV[18])
  redis.call('PEXPIRE', waitRecord, ARGV[19])
  redis.call('ZREMRANGEBYSCORE', waits, '-inf', ARGV[20])
  redis.call('ZADD', waits, ARGV[21], ARGV[13])
  if waitIndex then
    if tonumber(ARGV[19]) > 0 then
      redis.call('SET', waitIndex, ARGV[23], 'PX', ARGV[19])
    else
      redis.call('SET', waitIndex, ARGV[23])
    end
  end
end
if ARGV[5] == '1' and holder then redis.call('DEL', KEYS[1]) end
if runs and ARGV[5] == '1' then redis.call('ZREM', runs, ARGV[24]) end
if usage > 0 then
  local u = first + 2 * fields + messages
  for _, k in ipairs({KEYS[key + 2], KEYS[key + 3]}) do
    for i = u + 1, u + 2 * usage, 2 do redis.call('HINCRBY', k, ARGV[i], ARGV[i + 1]) end
    redis.call('PEXPIRE', k, ARGV[u])
  end
end
if ARGV[8] ~= '' then redis.call('PUBLISH', ARGV[11], ARGV[12]) end
if steers and redis.call('EXISTS', steers) == 1 then return 2 end
return 1
`)

// commitRefusals are commitScript's refusals.
var commitRefusals = map[int64]error{0: store.ErrLeaseLost, -1: store.ErrReceiptFinal, -2: store.ErrFenced}

// CommitResponse writes the receipt, its events, the transcript messages,
// the state delta, the wait and the lease's release of one step atomically,
// in one script: one round trip. A step with c.CreateSession (which must
// release) is a transaction instead (commitNewSession).
//
// It returns ErrLeaseLost when another response holds the session, or when
// the session is gone (deleted after the lease lapsed; nothing of it is
// written again), and ErrReceiptFinal when the lease lapsed and the receipt
// is already final (while the response holds its lease, nobody else writes
// its receipt, and a renewal never takes a lease back over a final
// receipt). Nothing is written then.
//
// On a Cluster the user's wait index and the run registry are written in
// steps of their own (see cluster.go): a wait is indexed before the script
// writes it, and a released run forgotten after it.
func (s *Store) CommitResponse(ctx context.Context, c store.Commit) error {
	if err := checkUsage(c.Usage); err != nil {
		return err
	}
	if c.CreateSession {
		if !c.Release {
			return store.ErrCreateWithoutRelease
		}
		return s.commitNewSession(ctx, c)
	}
	var indexWait, unregister bookkeeping
	if s.clustered && c.Wait != nil {
		indexWait = s.indexWait(ctx, c.User, c.Session, c.Wait)
	}
	if s.clustered && c.Release {
		unregister = s.forgetRun(ctx, runMemberAt(c.User, c.Session, c.ResponseID, c.Replica, c.Epoch))
	}
	// A crash (or a refused commit) after this leaves an index entry whose
	// wait is missing, which reads as no wait; it expires with the wait.
	if err := s.sendBookkeeping(ctx, indexWait); err != nil {
		return fmt.Errorf("store: commit response: index the wait: %w", err)
	}
	written, err := s.runCounting(ctx, s.commitCall(c), "commit response", commitRefusals)
	if err != nil {
		return err
	}
	if written == 2 && c.SteersLeft != nil {
		*c.SteersLeft = true
	}
	// The commit is done whatever this answers: a run left registered has
	// a final receipt, which a sweep only forgets.
	_ = s.sendBookkeeping(ctx, unregister)
	s.addUsageAfter(ctx, c)
	return nil
}

// commitCall is commitScript's call for c (see its KEYS and ARGV).
func (s *Store) commitCall(c store.Commit) scriptCall {
	k := s.sessionKeys(c.User, c.Session)
	pairs := 0 // the usage's fields and counts, where the script adds them
	if c.Release && !s.clustered && len(c.Usage) > 0 {
		pairs = usagePairs(c.Usage)
	}
	call := newScriptCall(commitScript, 32+len(c.StateDelta)+pairs, 12+pairs)
	call.key(k.lease)
	call.key(k.meta)
	call.key(k.receipt(c.ResponseID))
	call.key(k.state)
	call.key(k.events(c.ResponseID))
	call.key(k.msgs)
	call.key(k.epoch(c.ResponseID))
	if c.Wait != nil {
		call.key(k.wait(c.Wait.ID))
		call.key(k.waits())
		if !s.clustered {
			call.key(s.waitIndexKey(c.User, c.Wait.ID))
		}
	}
	registry := c.Release && !s.clustered // a release forgets the run
	if registry {
		call.key(s.runsKey())
	}
	if c.Release {
		call.key(k.steers(c.ResponseID))
	}
	usage := pairs > 0 // else usage.go adds it after (a Cluster)
	if usage {
		call.key(s.usageKey(c.User, false, c.UsageDay))
		call.key(s.usageKey("", true, c.UsageDay))
	}
	release := "0"
	if c.Release {
		release = "1"
	}
	call.str(c.ResponseID)
	call.str(c.Now)
	call.bytes(c.Receipt)
	call.num(millis(s.receiptTTL))
	call.str(release)
	call.num(int64(len(c.StateDelta)))
	call.num(int64(len(c.Messages)))
	eventArgs(&call, k, c)
	waitArgs(&call, c, !s.clustered)
	if registry {
		call.str(runMemberAt(c.User, c.Session, c.ResponseID, c.Replica, c.Epoch))
	} else {
		call.str("")
	}
	call.str(epochArg(c.Epoch))
	call.num(int64(pairs))
	for field, value := range c.StateDelta {
		call.str(field)
		call.bytes(value)
	}
	for _, m := range c.Messages {
		call.bytes(m)
	}
	if usage {
		call.num(store.UsageRetention.Milliseconds())
		appendUsageArgs(&call.argList, c.Usage)
	}
	return call
}

// eventArgs adds ARGV 8 to 12 of commitScript: the step's events as one
// batch of the log (see events.go), and its notification.
func eventArgs(call *scriptCall, k sessionKeys, c store.Commit) {
	if len(c.Events) == 0 {
		for range 5 {
			call.str("")
		}
		return
	}
	last := c.Events[len(c.Events)-1].Sequence
	call.num(int64(last))
	call.str(trimBelow(last))
	call.bytes(eventMember(c.Events))
	call.str(k.channel(c.ResponseID))
	call.num(int64(last))
}

// waitArgs adds ARGV 13 to 23 of commitScript: the step's wait, and its
// entry in the user's index when indexed is true (one server holds every
// key).
func waitArgs(call *scriptCall, c store.Commit, indexed bool) {
	w := c.Wait
	if w == nil {
		for range 11 {
			call.str("")
		}
		return
	}
	now := time.Now()
	ttl := w.ExpiresAt.Sub(now) + waitTombstone
	call.str(escapeID(w.ID))
	call.str(w.Kind)
	call.str(w.ResponseID)
	call.num(w.ExpiresAt.UnixMilli())
	call.num(int64(w.AfterSequence))
	call.str(w.Replica)
	call.num(millis(ttl))
	call.num(now.UnixMilli())
	call.num(now.Add(ttl).UnixMilli())
	if indexed {
		call.str("1")
	} else {
		call.str("")
	}
	call.str(c.Session)
}
