package redisstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/harnest/harnest/store"

	"github.com/redis/go-redis/v9"
)

// A session's compaction state is the field "compaction" of its meta hash
// (keys.go), so it goes with the session; its compaction items are
// transcript messages like the others (transcript.go).

const compactionField = "compaction"

// saveCompactionScript writes a session's compaction state and appends
// its item to the transcript, or refuses and writes nothing.
//
// KEYS: 1 meta, 2 lease, 3 the older form's transcript (transcript.go).
// ARGV: 1 the holder ("" for none), 2 "1" when a previous state is
// expected, 3 that state, 4 the new state, 5 "1" with an item, 6 the
// item, 7 now. It returns the item's offset (-1 without one), or -2 no
// session, -3 busy, -4 lease lost, -5 changed.
var saveCompactionScript = redis.NewScript(`
local length = redis.call('HGET', KEYS[1], 'msgs')
if not length and redis.call('EXISTS', KEYS[1]) == 0 then return -2 end
local holder = redis.call('GET', KEYS[2])
if ARGV[1] == '' and holder then return -3 end
if ARGV[1] ~= '' and holder ~= ARGV[1] then return -4 end
local prev = redis.call('HGET', KEYS[1], '` + compactionField + `')
if ARGV[2] == '1' then
  if prev ~= ARGV[3] then return -5 end
elseif prev then
  return -5
end
redis.call('HSET', KEYS[1], '` + compactionField + `', ARGV[4])
if ARGV[5] ~= '1' then return -1 end
local offset = tonumber(length) or 0
if redis.call('EXISTS', KEYS[3]) == 1 then
  redis.call('ZADD', KEYS[3], offset, ARGV[6])
else
  redis.call('HSET', KEYS[1], 'm:' .. offset, ARGV[6])
end
redis.call('HSET', KEYS[1], 'msgs', offset + 1, 'updatedAt', ARGV[7])
return offset
`)

// CompactionState reads the session's compaction state (nil: none) and
// its newest last messages (none when last < 1), pipelined: one round trip
// (two for a transcript of the older form).
func (s *Store) CompactionState(ctx context.Context, user, session string, last int) ([]byte, []store.StoredMessage, error) {
	k := s.sessionKeys(user, session)
	if last < 1 {
		v, err := s.rdb.HGet(ctx, k.meta, compactionField).Bytes()
		if errors.Is(err, redis.Nil) {
			return nil, nil, nil
		}
		if err != nil {
			return nil, nil, fmt.Errorf("store: read compaction state: %w", err)
		}
		return v, nil, nil
	}
	var state *redis.StringCmd
	var tail *redis.Cmd
	err := s.pipelined(ctx, func(p redis.Pipeliner) {
		state = p.HGet(ctx, k.meta, compactionField)
		tail = readTranscriptScript.EvalSha(ctx, p, []string{k.meta, k.msgs}, -1, last)
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, nil, fmt.Errorf("store: read compaction state: %w", err)
	}
	v, err := state.Bytes()
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, nil, fmt.Errorf("store: read compaction state: %w", err)
	}
	reply, err := tail.Slice()
	if err != nil {
		return nil, nil, fmt.Errorf("store: read transcript: %w", err)
	}
	msgs, err := s.transcriptReply(ctx, k, -1, last, reply)
	if err != nil {
		return nil, nil, err
	}
	return v, msgs, nil
}

// SaveCompaction runs saveCompactionScript.
func (s *Store) SaveCompaction(ctx context.Context, c store.CompactionSave) (int64, error) {
	k := s.sessionKeys(c.User, c.Session)
	hasPrev, hasItem := "0", "0"
	if c.Prev != nil {
		hasPrev = "1"
	}
	if c.Item != nil {
		hasItem = "1"
	}
	n, err := saveCompactionScript.Run(ctx, s.rdb, []string{k.meta, k.lease, k.msgs},
		c.Holder, hasPrev, c.Prev, c.State, hasItem, c.Item, c.Now).Int64()
	if err != nil {
		return -1, fmt.Errorf("store: save compaction: %w", err)
	}
	switch n {
	case -2:
		return -1, store.ErrSessionNotFound
	case -3:
		return -1, store.ErrSessionBusy
	case -4:
		return -1, store.ErrLeaseLost
	case -5:
		return -1, store.ErrCompactionChanged
	}
	return n, nil
}
