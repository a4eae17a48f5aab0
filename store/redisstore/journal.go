package redisstore

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/harnest/harnest/store"
)

// recordPointScript logs a resume point's events and keeps the point, in
// one round trip, after comparing the writer's epoch with the run's.
// KEYS: 1 the journal, 2 the run's epoch, 3 the event log. ARGV: 1 the
// writer's epoch, 2 the point's field, 3 its data, 4 its sequence, 5 the
// TTL in ms; with events, 6 the last event's sequence, 7 the log entry,
// 8 the trim bound ("" for none), 9 the channel. It returns 1, or -2
// (nothing written) when fenced.
var recordPointScript = redis.NewScript(fencedLua + `
if fenced(KEYS[2], ARGV[1]) then return -2 end
if ARGV[6] then
  redis.call('ZADD', KEYS[3], ARGV[6], ARGV[7])
  if ARGV[8] ~= '' then redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', ARGV[8]) end
  redis.call('PEXPIRE', KEYS[3], ARGV[5])
  redis.call('PUBLISH', ARGV[9], ARGV[6])
end
local seq = tonumber(redis.call('HGET', KEYS[1], 'seq') or '-1')
if tonumber(ARGV[4]) > seq then seq = tonumber(ARGV[4]) end
redis.call('HSET', KEYS[1], ARGV[2], ARGV[3], 'seq', seq)
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1
`)

// RecordPoint logs p's events and keeps the resume point in one script:
// see store.Journals.
func (s *Store) RecordPoint(ctx context.Context, p store.ResumePoint) error {
	k := s.sessionKeys(p.User, p.Session)
	c := newScriptCall(recordPointScript, 8, 3)
	c.key(k.journal(p.ResponseID))
	c.key(k.epoch(p.ResponseID))
	c.key(k.events(p.ResponseID))
	c.str(epochArg(p.Epoch))
	c.str(journalField(p.Key))
	c.bytes(p.Data)
	c.num(int64(p.Sequence))
	c.num(millis(s.receiptTTL))
	if len(p.Events) > 0 {
		last := p.Events[len(p.Events)-1].Sequence
		c.num(int64(last))
		c.bytes(eventMember(p.Events))
		c.str(trimBelow(last))
		c.str(k.channel(p.ResponseID))
	}
	_, err := s.runCounting(ctx, c, "record a resume point", fencedRefusal)
	return err
}

// journalField is the hash field of a point's key.
func journalField(key string) string { return "p:" + key }

// Journal reads a run's resume points in one round trip.
func (s *Store) Journal(ctx context.Context, user, session, responseID string) (store.Journal, error) {
	fields, err := s.rdb.HGetAll(ctx, s.sessionKeys(user, session).journal(responseID)).Result()
	if err != nil {
		return store.Journal{}, fmt.Errorf("store: read the resume points: %w", err)
	}
	out := store.Journal{Sequence: -1}
	for field, value := range fields {
		if key, ok := strings.CutPrefix(field, "p:"); ok {
			if out.Points == nil {
				out.Points = make(map[string][]byte, len(fields))
			}
			out.Points[key] = []byte(value)
			continue
		}
		if field == "seq" {
			if n, err := strconv.Atoi(value); err == nil {
				out.Sequence = n
			}
		}
	}
	return out, nil
}
