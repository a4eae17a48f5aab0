package redisstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/harnest/harnest/store"
)

// A2A tasks live per user; everything of one user shares the hash tag
// {a2a:<user>} (one slot on a Cluster):
//
//	{a2a:<user>}:t:<taskId>     HASH v (version), s (state), c (context ID),
//	                            t (status time, ms), j (the record's JSON)
//	{a2a:<user>}:tasks          ZSET task IDs scored by status time (ms)
//	{a2a:<user>}:c:<contextId>  ZSET the same, per context
//	{a2a:<user>}:s:<state>      ZSET the same, per state
//
// Every key lives for the receipt TTL after the last put. A put drops the
// index entries older than that by score, so the indexes hold the tasks
// whose status time is within the TTL; lists read only those (a task's
// status time is never later than its last put, so they are the live
// ones, and an entry whose hash expired meanwhile is skipped).

func (s *Store) taskTag(user string) string { return s.prefix + "{a2a:" + escapeID(user) + "}" }

func (s *Store) taskKey(user, id string) string { return s.taskTag(user) + ":t:" + escapeID(id) }

func (s *Store) taskUserIndex(user string) string { return s.taskTag(user) + ":tasks" }

func (s *Store) taskContextIndex(user, contextID string) string {
	return s.taskTag(user) + ":c:" + escapeID(contextID)
}

func (s *Store) taskStateIndex(user, state string) string {
	return s.taskTag(user) + ":s:" + escapeID(state)
}

// putTaskScript writes a task unless a later version is stored, and moves
// it in the indexes. The state index it leaves must be a declared key, so
// the caller names the state it expects the task to have (KEYS[5]); when
// the stored state is another, nothing is written and the script returns
// it, for the caller to try again with that one.
//
// KEYS: task, user index, context index, new state's index[, expected old
// state's index]. ARGV: version, JSON, score, task ID, state, TTL in ms,
// the oldest score to keep, context ID, expected old state.
// Returns {1} written, {0} skipped (later version), {-1, state} another
// state is stored, {-2} another context is stored.
var putTaskScript = redis.NewScript(`
local cur = redis.call('HMGET', KEYS[1], 'v', 's', 'c')
if cur[1] and tonumber(cur[1]) > tonumber(ARGV[1]) then return {0} end
if cur[3] and cur[3] ~= ARGV[8] then return {-2} end
local old = cur[2]
if old and old ~= ARGV[5] and (#KEYS < 5 or old ~= ARGV[9]) then return {-1, old} end
redis.call('HSET', KEYS[1], 'v', ARGV[1], 's', ARGV[5], 'c', ARGV[8], 't', ARGV[3], 'j', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[6])
if #KEYS >= 5 then redis.call('ZREM', KEYS[5], ARGV[4]) end
for i = 2, 4 do
  redis.call('ZADD', KEYS[i], ARGV[3], ARGV[4])
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', '(' .. ARGV[7])
  redis.call('PEXPIRE', KEYS[i], ARGV[6])
end
return {1}
`)

// putTaskTries bounds the tries of a put whose task changes state under
// it (each try loses only to another replica's put of the same task).
const putTaskTries = 8

// PutTask stores a task record unless a later version is stored: one round
// trip for a new task or one that keeps its state, two when its state
// changes.
func (s *Store) PutTask(ctx context.Context, user string, rec store.TaskRecord) (bool, error) {
	score := rec.StatusTime.UnixMilli()
	ttl := s.receiptTTL.Milliseconds()
	// The first try expects a new task or one that keeps its state; a
	// later one the state the script found.
	expected, haveExpected := "", false
	for range putTaskTries {
		keys := []string{s.taskKey(user, rec.ID), s.taskUserIndex(user),
			s.taskContextIndex(user, rec.ContextID), s.taskStateIndex(user, rec.State)}
		if haveExpected {
			keys = append(keys, s.taskStateIndex(user, expected))
		}
		oldest := time.Now().Add(-s.receiptTTL).UnixMilli()
		res, err := putTaskScript.Run(ctx, s.rdb, keys, rec.Version, rec.JSON, score, rec.ID, rec.State,
			ttl, oldest, rec.ContextID, expected).Slice()
		if err != nil {
			return false, fmt.Errorf("store: put task: %w", err)
		}
		code, _ := res[0].(int64)
		switch code {
		case 1:
			return true, nil
		case 0:
			return false, nil
		case -2:
			return false, store.ErrTaskContext
		}
		if len(res) < 2 {
			return false, fmt.Errorf("store: put task: unexpected reply %v", res)
		}
		expected, _ = res[1].(string)
		haveExpected = true
	}
	return false, fmt.Errorf("store: put task %q: its state kept changing under %d tries; retry", rec.ID, putTaskTries)
}

// taskFields are the hash fields a read takes, in this order.
var taskFields = []string{"j", "v", "s", "c", "t"}

// taskFrom builds a record from the fields of an HMGET of taskFields;
// found is false when the task does not exist.
func taskFrom(id string, vals []any) (store.TaskRecord, bool) {
	j, ok := vals[0].(string)
	if !ok {
		return store.TaskRecord{}, false
	}
	str := func(v any) string { s, _ := v.(string); return s }
	version, _ := strconv.ParseInt(str(vals[1]), 10, 64)
	rec := store.TaskRecord{ID: id, JSON: []byte(j), Version: version, State: str(vals[2]), ContextID: str(vals[3])}
	if ms, err := strconv.ParseInt(str(vals[4]), 10, 64); err == nil {
		rec.StatusTime = time.UnixMilli(ms)
	}
	return rec, true
}

// GetTask reads one of the user's tasks.
func (s *Store) GetTask(ctx context.Context, user, id string) (store.TaskRecord, bool, error) {
	vals, err := s.rdb.HMGet(ctx, s.taskKey(user, id), taskFields...).Result()
	if err != nil {
		return store.TaskRecord{}, false, fmt.Errorf("store: get task: %w", err)
	}
	rec, found := taskFrom(id, vals)
	return rec, found, nil
}

// taskListBatch is how many index entries a list reads per round trip.
const taskListBatch = 100

// ListTasks returns a page of the user's tasks, newest status time first.
// The index it scans is the narrowest the filters allow: a context, a
// state, or all of the user's tasks; a state filter within a context is
// applied while scanning.
func (s *Store) ListTasks(ctx context.Context, user string, q store.TaskQuery) (store.TaskPage, error) {
	limit := max(q.Limit, 1)
	key, filterState := s.taskUserIndex(user), q.State
	switch {
	case q.ContextID != "":
		key = s.taskContextIndex(user, q.ContextID)
	case q.State != "":
		key = s.taskStateIndex(user, q.State)
	}
	minScore := strconv.FormatInt(s.lowestTaskScore(q.After), 10)
	page := store.TaskPage{Tasks: []store.TaskRecord{}}
	total, err := s.countTasks(ctx, user, key, minScore, q.ContextID != "", filterState)
	if err != nil {
		return page, err
	}
	page.Total = total

	maxScore := "+inf"
	if q.Cursor != nil {
		maxScore = strconv.FormatInt(q.Cursor.StatusMilli, 10)
	}
	for offset := int64(0); ; {
		zs, err := s.rdb.ZRevRangeByScoreWithScores(ctx, key, &redis.ZRangeBy{
			Max: maxScore, Min: minScore, Offset: offset, Count: taskListBatch}).Result()
		if err != nil {
			return page, fmt.Errorf("store: list tasks: %w", err)
		}
		offset += int64(len(zs))
		recs, err := s.loadTasks(ctx, user, zs)
		if err != nil {
			return page, err
		}
		for i, z := range zs {
			id, _ := z.Member.(string)
			if c := q.Cursor; c != nil && int64(z.Score) == c.StatusMilli && id >= c.ID {
				continue // at or before the cursor (ties go by ID, descending)
			}
			rec := recs[i]
			if rec == nil || (filterState != "" && rec.State != filterState) {
				continue // expired, or in another state
			}
			if len(page.Tasks) == limit {
				next := store.TaskCursorOf(page.Tasks[limit-1])
				page.Next = &next
				return page, nil
			}
			page.Tasks = append(page.Tasks, *rec)
		}
		if len(zs) < taskListBatch {
			return page, nil
		}
	}
}

// lowestTaskScore is the lowest score a list reads: the index entries
// within the TTL, and only those after after when it is set.
func (s *Store) lowestTaskScore(after time.Time) int64 {
	lowest := time.Now().Add(-s.receiptTTL).UnixMilli()
	if !after.IsZero() {
		lowest = max(lowest, after.UnixMilli()+1)
	}
	return lowest
}

// loadTasks reads the records of index entries in one round trip; an
// expired task's entry reads as nil.
func (s *Store) loadTasks(ctx context.Context, user string, zs []redis.Z) ([]*store.TaskRecord, error) {
	if len(zs) == 0 {
		return nil, nil
	}
	cmds := make([]*redis.SliceCmd, len(zs))
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, z := range zs {
			id, _ := z.Member.(string)
			cmds[i] = p.HMGet(ctx, s.taskKey(user, id), taskFields...)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: read tasks: %w", err)
	}
	out := make([]*store.TaskRecord, len(zs))
	for i, c := range cmds {
		id, _ := zs[i].Member.(string)
		if rec, found := taskFrom(id, c.Val()); found {
			out[i] = &rec
		}
	}
	return out, nil
}

// countTasks is the number of tasks a query matches before paging: an
// index count, or, when a state filters a context, a scan of the
// context's tasks that reads their states only.
func (s *Store) countTasks(ctx context.Context, user, key, minScore string, inContext bool, state string) (int, error) {
	if !inContext || state == "" {
		n, err := s.rdb.ZCount(ctx, key, minScore, "+inf").Result()
		if err != nil {
			return 0, fmt.Errorf("store: count tasks: %w", err)
		}
		return int(n), nil
	}
	const batch = 200
	n := 0
	for offset := int64(0); ; offset += batch {
		ids, err := s.rdb.ZRevRangeByScore(ctx, key, &redis.ZRangeBy{Max: "+inf", Min: minScore, Offset: offset, Count: batch}).Result()
		if err != nil {
			return 0, fmt.Errorf("store: count tasks: %w", err)
		}
		if len(ids) == 0 {
			return n, nil
		}
		cmds := make([]*redis.StringCmd, len(ids))
		_, err = s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			for i, id := range ids {
				cmds[i] = p.HGet(ctx, s.taskKey(user, id), "s")
			}
			return nil
		})
		if err != nil && !errors.Is(err, redis.Nil) {
			return 0, fmt.Errorf("store: count tasks: %w", err)
		}
		for _, c := range cmds {
			if c.Val() == state && c.Err() == nil {
				n++
			}
		}
		if len(ids) < batch {
			return n, nil
		}
	}
}
