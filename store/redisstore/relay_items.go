package redisstore

import (
	"context"
	"sort"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/harnest/harnest/store"
)

// relayItemKeep is how long an item is kept after its deadline, so that a
// late reply is told it expired rather than unknown.
const relayItemKeep = time.Hour

// enqueueScript checks the participant, prunes its inbox of passed
// deadlines, checks the bound, writes the item and wakes the inbox.
var enqueueScript = redis.NewScript(`
local st = redis.call('HMGET', KEYS[1], 'state', 'expires')
if not st[1] or tonumber(st[2]) <= tonumber(ARGV[1]) then return 'gone' end
if st[1] == 'paused' then return 'paused' end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[6]) then return 'full' end
redis.call('HSET', KEYS[3], 'id', ARGV[2], 'pid', ARGV[3], 'text', ARGV[4], 'asked', ARGV[1],
  'deadline', ARGV[5], 'state', 'pending')
redis.call('PEXPIRE', KEYS[3], ARGV[7])
redis.call('ZADD', KEYS[2], ARGV[5], ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[7])
redis.call('PUBLISH', ARGV[8], ARGV[9])
return 'ok'
`)

// enqueueRefusals are enqueueScript's refusals ("ok" is none).
var enqueueRefusals = map[string]error{
	"gone": store.ErrParticipantGone, "paused": store.ErrParticipantPaused, "full": store.ErrInboxFull,
}

// EnqueueRelayItem puts a pending item into the inbox of one of owner's
// participants and wakes the inbox's listeners.
func (s *Store) EnqueueRelayItem(ctx context.Context, owner string, it store.RelayItem, maxPending int) error {
	keep := it.DeadlineAt.Sub(it.AskedAt) + relayItemKeep
	res, err := enqueueScript.Run(ctx, s.rdb,
		[]string{s.relayPartKey(owner, it.Participant), s.relayInboxKey(owner, it.Participant), s.relayItemKey(owner, it.ID)},
		relayMS(it.AskedAt), it.ID, it.Participant, it.Text, relayMS(it.DeadlineAt), maxPending, keep.Milliseconds(),
		s.relayWakeChannel(), relayWakeInbox(owner, it.Participant)).Text()
	if err != nil {
		return err
	}
	return enqueueRefusals[res]
}

// itemFrom reads an item's hash; false when it is not one.
func itemFrom(m map[string]string) (store.RelayItem, bool) {
	if m["id"] == "" {
		return store.RelayItem{}, false
	}
	return store.RelayItem{ID: m["id"], Participant: m["pid"], Text: m["text"], AskedAt: relayTime(m["asked"]),
		DeadlineAt: relayTime(m["deadline"]), State: m["state"], Reply: m["reply"]}, true
}

// GetRelayItem reads one of owner's items.
func (s *Store) GetRelayItem(ctx context.Context, owner, id string) (store.RelayItem, bool, error) {
	m, err := s.rdb.HGetAll(ctx, s.relayItemKey(owner, id)).Result()
	if err != nil {
		return store.RelayItem{}, false, err
	}
	it, ok := itemFrom(m)
	return it, ok && it.ID == id, nil
}

// PendingRelayItems lists the participant's pending items whose deadline
// is after now, oldest first.
func (s *Store) PendingRelayItems(ctx context.Context, owner, participant string, now time.Time) ([]store.RelayItem, error) {
	min := "(" + strconv.FormatInt(relayMS(now), 10)
	ids, err := s.rdb.ZRangeByScore(ctx, s.relayInboxKey(owner, participant), &redis.ZRangeBy{Min: min, Max: "+inf"}).Result()
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	cmds := make([]*redis.MapStringStringCmd, len(ids))
	err = s.pipelined(ctx, func(p redis.Pipeliner) {
		for i, id := range ids {
			cmds[i] = p.HGetAll(ctx, s.relayItemKey(owner, id))
		}
	})
	if err != nil {
		return nil, err
	}
	var out []store.RelayItem
	for _, c := range cmds {
		it, ok := itemFrom(c.Val())
		if ok && it.State == store.RelayItemPending && it.Participant == participant && it.DeadlineAt.After(now) {
			out = append(out, it)
		}
	}
	sortItems(out)
	return out, nil
}

// sortItems orders items by the time they were asked, then deadline, then
// ID.
func sortItems(items []store.RelayItem) {
	sort.Slice(items, func(i, j int) bool {
		a, b := items[i], items[j]
		switch {
		case !a.AskedAt.Equal(b.AskedAt):
			return a.AskedAt.Before(b.AskedAt)
		case !a.DeadlineAt.Equal(b.DeadlineAt):
			return a.DeadlineAt.Before(b.DeadlineAt)
		}
		return a.ID < b.ID
	})
}

// replyScript answers a pending item of a live, active participant once
// and wakes the item's listeners.
var replyScript = redis.NewScript(`
local st = redis.call('HMGET', KEYS[1], 'state', 'expires')
if not st[1] or tonumber(st[2]) <= tonumber(ARGV[1]) then return 'gone' end
if st[1] == 'paused' then return 'paused' end
local it = redis.call('HMGET', KEYS[3], 'pid', 'state', 'deadline')
if not it[1] or it[1] ~= ARGV[2] then return 'unknown' end
if it[2] == 'answered' then return 'answered' end
if it[2] ~= 'pending' or tonumber(it[3]) <= tonumber(ARGV[1]) then return 'expired' end
redis.call('HSET', KEYS[3], 'state', 'answered', 'reply', ARGV[3])
redis.call('ZREM', KEYS[2], ARGV[4])
redis.call('PUBLISH', ARGV[5], ARGV[6])
return 'ok'
`)

// replyRefusals are replyScript's refusals ("ok" is none).
var replyRefusals = map[string]error{
	"gone": store.ErrParticipantGone, "paused": store.ErrParticipantPaused, "unknown": store.ErrRelayItemUnknown,
	"answered": store.ErrRelayItemAnswered, "expired": store.ErrRelayItemExpired,
}

// ReplyRelayItem answers a pending item of the participant once.
func (s *Store) ReplyRelayItem(ctx context.Context, owner, participant, id, reply string, now time.Time) error {
	res, err := replyScript.Run(ctx, s.rdb,
		[]string{s.relayPartKey(owner, participant), s.relayInboxKey(owner, participant), s.relayItemKey(owner, id)},
		relayMS(now), participant, reply, id, s.relayWakeChannel(), relayWakeItem(owner, id)).Text()
	if err != nil {
		return err
	}
	return replyRefusals[res]
}

// cancelScript withdraws a pending item of the participant and wakes the
// item's listeners; any other item is left as it is.
var cancelScript = redis.NewScript(`
local it = redis.call('HMGET', KEYS[2], 'pid', 'state')
if not it[1] or it[1] ~= ARGV[1] or it[2] ~= 'pending' then return 0 end
redis.call('HSET', KEYS[2], 'state', 'cancelled')
redis.call('ZREM', KEYS[1], ARGV[2])
redis.call('PUBLISH', ARGV[3], ARGV[4])
return 1
`)

// CancelRelayItem withdraws a pending item from the inbox.
func (s *Store) CancelRelayItem(ctx context.Context, owner, participant, id string) error {
	return cancelScript.Run(ctx, s.rdb, []string{s.relayInboxKey(owner, participant), s.relayItemKey(owner, id)},
		participant, id, s.relayWakeChannel(), relayWakeItem(owner, id)).Err()
}
