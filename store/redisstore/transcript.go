package redisstore

import (
	"context"
	"fmt"
	"strconv"

	"github.com/harnest/harnest/store"

	"github.com/redis/go-redis/v9"
)

// A session's transcript is kept in its meta hash, a field per message:
// m:<offset> holds message <offset>'s JSON, and msgs how many there are.
// A new session's turn writes its messages with the rest of its meta in
// one HSET (commit_new.go), and a field written again is the same value:
// a step sent again writes the same transcript. A page is an HMGET of the
// page's fields: O(page) whatever the transcript's length.
//
// Sessions made before kept their transcript in a sorted set of its own
// (sessionKeys.msgs, scored by offset). The commit script goes on
// appending to that set while it exists, and the readers read it.

// maxFieldsPerCall bounds the fields of one HMGET or HSET a script sends
// (unpack is bounded by Lua's stack).
const maxFieldsPerCall = 200

// readTranscriptScript reads a page of a session's transcript.
//
// KEYS: 1 meta, 2 the older form's sorted set. ARGV: 1 the first offset,
// or -1 for the last ARGV[2] messages; 2 how many (< 1: all from there).
// It returns {-1} when the session keeps the older form (the caller reads
// the set), else {the first offset, the messages' JSON...}.
var readTranscriptScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[2]) == 1 then return {-1} end
local n = tonumber(redis.call('HGET', KEYS[1], 'msgs')) or 0
local from, limit = tonumber(ARGV[1]), tonumber(ARGV[2])
if from < 0 then
  from = 0
  if limit > 0 then from = math.max(n - limit, 0) end
end
local to = n - 1
if limit > 0 then to = math.min(to, from + limit - 1) end
local out = {from}
for first = from, to, ` + strconv.Itoa(maxFieldsPerCall) + ` do
  local fields = {}
  for i = first, math.min(first + ` + strconv.Itoa(maxFieldsPerCall-1) + `, to) do fields[#fields + 1] = 'm:' .. i end
  for _, m in ipairs(redis.call('HMGET', KEYS[1], unpack(fields))) do
    if not m then return out end -- a message the step is still writing: none after it
    out[#out + 1] = m
  end
end
return out
`)

// Messages reads up to limit transcript messages (limit < 1: all)
// starting at offset from, in order; O(limit) whatever the transcript's
// length.
func (s *Store) Messages(ctx context.Context, user, session string, from int64, limit int) ([]store.StoredMessage, error) {
	return s.readTranscript(ctx, s.sessionKeys(user, session), max(from, 0), limit)
}

// LastMessages reads the newest limit transcript messages (limit < 1:
// all), oldest first.
func (s *Store) LastMessages(ctx context.Context, user, session string, limit int) ([]store.StoredMessage, error) {
	return s.readTranscript(ctx, s.sessionKeys(user, session), -1, limit)
}

// readTranscript runs readTranscriptScript (from -1: the last limit
// messages), and reads a transcript of the older form from its set.
func (s *Store) readTranscript(ctx context.Context, k sessionKeys, from int64, limit int) ([]store.StoredMessage, error) {
	reply, err := readTranscriptScript.Run(ctx, s.rdb, []string{k.meta, k.msgs}, from, limit).Slice()
	if err != nil {
		return nil, fmt.Errorf("store: read transcript: %w", err)
	}
	return s.transcriptReply(ctx, k, from, limit, reply)
}

// transcriptReply reads readTranscriptScript's reply (and a transcript of
// the older form from its set).
func (s *Store) transcriptReply(ctx context.Context, k sessionKeys, from int64, limit int, reply []any) ([]store.StoredMessage, error) {
	first, ok := reply[0].(int64)
	if !ok {
		return nil, fmt.Errorf("store: read transcript: unexpected reply %v", reply)
	}
	if first < 0 {
		return s.readOlderTranscript(ctx, k, from, limit)
	}
	out := make([]store.StoredMessage, 0, len(reply)-1)
	for i, m := range reply[1:] {
		text, ok := m.(string)
		if !ok {
			return nil, fmt.Errorf("store: read transcript: message %d is a %T", first+int64(i), m)
		}
		out = append(out, store.StoredMessage{Offset: first + int64(i), JSON: []byte(text)})
	}
	return out, nil
}

// readOlderTranscript reads a page of a transcript kept as a sorted set
// (from -1: the last limit messages).
func (s *Store) readOlderTranscript(ctx context.Context, k sessionKeys, from int64, limit int) ([]store.StoredMessage, error) {
	var zs []redis.Z
	var err error
	if from < 0 {
		zs, err = s.rdb.ZRevRangeWithScores(ctx, k.msgs, 0, int64(limit)-1).Result()
		for i, j := 0, len(zs)-1; i < j; i, j = i+1, j-1 {
			zs[i], zs[j] = zs[j], zs[i]
		}
	} else {
		zs, err = s.rdb.ZRangeByScoreWithScores(ctx, k.msgs, &redis.ZRangeBy{
			Min: strconv.FormatInt(from, 10), Max: "+inf", Count: int64(max(limit, 0)),
		}).Result()
	}
	if err != nil {
		return nil, fmt.Errorf("store: read transcript: %w", err)
	}
	out := make([]store.StoredMessage, len(zs))
	for i, z := range zs {
		member, _ := z.Member.(string)
		out[i] = store.StoredMessage{Offset: int64(z.Score), JSON: []byte(member)}
	}
	return out, nil
}
