package a2a

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// Tasks live in Redis per owner, so that any replica can get, list, cancel
// and follow them. Everything of one user shares the hash tag {a2a:<user>}
// (one slot on a Cluster):
//
//	{a2a:<user>}:t:<taskId>       HASH v (version), s (state), j (the record as JSON)
//	{a2a:<user>}:tasks            ZSET taskId scored by status time (ms): newest first
//	{a2a:<user>}:c:<contextId>    ZSET the same, per context
//	{a2a:<user>}:s:<state>        ZSET the same, per state
//
// A write carries the record's version (mapper.version) and is skipped
// when Redis holds a later one, so replicas that fold the same response
// never move a task backwards. Index entries of expired tasks are dropped
// by age on every write; a list skips entries whose task expired.

// record is a task as stored: the snapshot and where its fold stands.
type record struct {
	Task Task     `json:"task"`
	Seq  int      `json:"seq"`
	Sub  int      `json:"sub,omitempty"`
	Wait *waitRef `json:"wait,omitempty"`
}

func (r record) mapper(now func() time.Time) *mapper {
	return &mapper{task: r.Task, seq: r.Seq, sub: r.Sub, wait: r.Wait, now: now}
}

func recordOf(m *mapper) record {
	return record{Task: m.task, Seq: m.seq, Sub: m.sub, Wait: m.wait}
}

type taskStore struct {
	rdb    redis.UniversalClient
	prefix string
	ttl    time.Duration
	// tokens seals list page tokens: the Service, so that every cursor
	// the server issues is sealed the same way with the same key.
	tokens tokenSealer
}

// tokenSealer seals and opens opaque tokens bound to a kind and a user;
// *runtime.Service and *runtime.TokenSealer are both one.
type tokenSealer interface {
	SealToken(ctx context.Context, kind, user string, v any) (string, error)
	OpenToken(ctx context.Context, token, kind, user string, v any) (bool, error)
}

var idEscaper = strings.NewReplacer("%", "%25", ":", "%3A", "{", "%7B", "}", "%7D")

// esc makes an ID safe inside a key: no ID can name another user's keys.
func esc(id string) string {
	if !strings.ContainsAny(id, "%:{}") {
		return id
	}
	return idEscaper.Replace(id)
}

func (s *taskStore) tag(user string) string { return s.prefix + "{a2a:" + esc(user) + "}" }
func (s *taskStore) taskKey(user, id string) string {
	return s.tag(user) + ":t:" + esc(id)
}
func (s *taskStore) userIndex(user string) string { return s.tag(user) + ":tasks" }
func (s *taskStore) contextIndex(user, ctx string) string {
	return s.tag(user) + ":c:" + esc(ctx)
}
func (s *taskStore) stateIndex(user, state string) string { return s.tag(user) + ":s:" + state }

// putScript writes a record unless a later version is stored, and moves
// it in the indexes. KEYS: task, user index, context index, then one state
// index per state (the new state's first). ARGV: version, JSON, score,
// task ID, state, TTL in ms, the oldest score to keep.
var putScript = redis.NewScript(`
local v = redis.call('HGET', KEYS[1], 'v')
if v and tonumber(v) > tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'v', ARGV[1], 's', ARGV[5], 'j', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[6])
for i = 5, #KEYS do redis.call('ZREM', KEYS[i], ARGV[4]) end
for i = 2, 4 do
  redis.call('ZADD', KEYS[i], ARGV[3], ARGV[4])
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', '(' .. ARGV[7])
  redis.call('PEXPIRE', KEYS[i], ARGV[6])
end
return 1
`)

// scoreOf is a task's index score: its status time in milliseconds.
func scoreOf(t Task) int64 {
	ts, err := time.Parse(time.RFC3339Nano, t.Status.Timestamp)
	if err != nil {
		return 0
	}
	return ts.UnixMilli()
}

// put stores a record at its version.
func (s *taskStore) put(ctx context.Context, user string, m *mapper) error {
	rec := recordOf(m)
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	state := rec.Task.Status.State
	keys := []string{s.taskKey(user, rec.Task.ID), s.userIndex(user), s.contextIndex(user, rec.Task.ContextID), s.stateIndex(user, state)}
	for _, st := range allStates {
		if st != state {
			keys = append(keys, s.stateIndex(user, st))
		}
	}
	oldest := time.Now().Add(-s.ttl).UnixMilli()
	err = putScript.Run(ctx, s.rdb, keys, m.version(), b, scoreOf(rec.Task), rec.Task.ID, state,
		s.ttl.Milliseconds(), oldest).Err()
	if err != nil {
		return fmt.Errorf("a2a: store task: %w", err)
	}
	return nil
}

// get reads one of the user's tasks; found is false when it does not exist
// (or belongs to someone else).
func (s *taskStore) get(ctx context.Context, user, id string) (rec record, found bool, err error) {
	b, err := s.rdb.HGet(ctx, s.taskKey(user, id), "j").Bytes()
	if errors.Is(err, redis.Nil) {
		return rec, false, nil
	}
	if err != nil {
		return rec, false, fmt.Errorf("a2a: read task: %w", err)
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		return rec, false, fmt.Errorf("a2a: decode task: %w", err)
	}
	return rec, true, nil
}

// pageToken is where a list page ends: the last task's score and ID. On
// the wire it is sealed for its user (kind pageTokenKind), so a client can
// neither read nor forge it, and another user's token is refused like a
// malformed one.
type pageToken struct {
	Score int64  `json:"s"`
	ID    string `json:"i"`
}

// pageTokenKind is the sealed kind of a ListTasks page token.
const pageTokenKind = "a2a.tasks"

// errBadPageToken is the answer to a page token this server did not issue
// to this user.
func errBadPageToken() *Error {
	return errInvalidParams("pageToken is not a token this server issued")
}

// list returns a page of the user's tasks, newest status first. The index
// it scans is the narrowest the filters allow: a context, a state, or all
// of the user's tasks; a state filter within a context is applied while
// scanning.
func (s *taskStore) list(ctx context.Context, user string, q listRequest) (listResult, error) {
	key := s.userIndex(user)
	filterState := ""
	switch {
	case q.ContextID != "":
		key, filterState = s.contextIndex(user, q.ContextID), q.Status
	case q.Status != "":
		key = s.stateIndex(user, q.Status)
	}
	minScore := "-inf"
	if !q.After.IsZero() {
		minScore = "(" + strconv.FormatInt(q.After.UnixMilli(), 10)
	}
	maxScore := "+inf"
	var cursor *pageToken
	if q.PageToken != "" {
		var t pageToken
		ok, err := s.tokens.OpenToken(ctx, q.PageToken, pageTokenKind, user, &t)
		if err != nil {
			return listResult{}, fmt.Errorf("a2a: open page token: %w", err)
		}
		if !ok || t.ID == "" {
			return listResult{}, errBadPageToken()
		}
		cursor = &t
		maxScore = strconv.FormatInt(t.Score, 10)
	}
	out := listResult{Tasks: []Task{}, PageSize: q.PageSize}
	total, err := s.count(ctx, user, key, minScore, filterState)
	if err != nil {
		return out, err
	}
	out.TotalSize = total

	const batch = 100
	offset := int64(0)
	var last pageToken
	more := false
	for len(out.Tasks) <= q.PageSize {
		zs, err := s.rdb.ZRevRangeByScoreWithScores(ctx, key, &redis.ZRangeBy{
			Max: maxScore, Min: minScore, Offset: offset, Count: batch}).Result()
		if err != nil {
			return out, fmt.Errorf("a2a: list tasks: %w", err)
		}
		if len(zs) == 0 {
			break
		}
		offset += int64(len(zs))
		recs, err := s.load(ctx, user, zs)
		if err != nil {
			return out, err
		}
		for i, z := range zs {
			id, _ := z.Member.(string)
			score := int64(z.Score)
			if cursor != nil && score == cursor.Score && id >= cursor.ID {
				continue // at or before the cursor (ties go by ID, descending)
			}
			rec := recs[i]
			if rec == nil || (filterState != "" && rec.Task.Status.State != filterState) {
				continue
			}
			if len(out.Tasks) == q.PageSize {
				more = true
				break
			}
			t := rec.Task.withHistory(q.HistoryLength)
			if !q.IncludeArtifacts {
				t.Artifacts = nil
			}
			out.Tasks = append(out.Tasks, t)
			last = pageToken{Score: score, ID: id}
		}
		if more || len(zs) < batch {
			break
		}
	}
	if more {
		tok, err := s.tokens.SealToken(ctx, pageTokenKind, user, last)
		if err != nil {
			return out, fmt.Errorf("a2a: seal page token: %w", err)
		}
		out.NextPageToken = tok
	}
	return out, nil
}

// load reads the records of index entries in one round trip; an expired
// task's entry reads as nil (writes drop such entries by age).
func (s *taskStore) load(ctx context.Context, user string, zs []redis.Z) ([]*record, error) {
	cmds := make([]*redis.StringCmd, len(zs))
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, z := range zs {
			id, _ := z.Member.(string)
			cmds[i] = p.HGet(ctx, s.taskKey(user, id), "j")
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("a2a: read tasks: %w", err)
	}
	out := make([]*record, len(zs))
	for i, c := range cmds {
		b, err := c.Bytes()
		if err != nil {
			continue
		}
		var rec record
		if json.Unmarshal(b, &rec) == nil {
			out[i] = &rec
		}
	}
	return out, nil
}

// count is the number of tasks a query matches before paging: an index
// count, or a scan of one context's tasks when a state filters it.
func (s *taskStore) count(ctx context.Context, user, key, minScore, state string) (int, error) {
	if state == "" {
		n, err := s.rdb.ZCount(ctx, key, minScore, "+inf").Result()
		if err != nil {
			return 0, fmt.Errorf("a2a: count tasks: %w", err)
		}
		return int(n), nil
	}
	n := 0
	for offset := int64(0); ; {
		zs, err := s.rdb.ZRevRangeByScoreWithScores(ctx, key, &redis.ZRangeBy{Max: "+inf", Min: minScore, Offset: offset, Count: 200}).Result()
		if err != nil {
			return 0, fmt.Errorf("a2a: count tasks: %w", err)
		}
		if len(zs) == 0 {
			return n, nil
		}
		offset += int64(len(zs))
		recs, err := s.load(ctx, user, zs)
		if err != nil {
			return 0, err
		}
		for _, r := range recs {
			if r != nil && r.Task.Status.State == state {
				n++
			}
		}
	}
}
