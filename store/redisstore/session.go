package redisstore

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/harnest/harnest/store"

	"github.com/redis/go-redis/v9"
)

var createSessionScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'createdAt', ARGV[1], 'updatedAt', ARGV[1], 'msgs', 0)
for i = 2, #ARGV, 2 do redis.call('HSET', KEYS[2], ARGV[i], ARGV[i+1]) end
return 1
`)

// CreateSession stores a new session with its initial state. It returns
// ErrSessionExists when the user already has a session with that ID.
func (s *Store) CreateSession(ctx context.Context, user, id string, state map[string]json.RawMessage, now string) error {
	k := s.sessionKeys(user, id)
	args := append([]any{now}, stateArgs(state)...)
	var created *redis.Cmd
	err := s.pipelined(ctx, func(p redis.Pipeliner) {
		created = createSessionScript.Run(ctx, p, []string{k.meta, k.state}, args...)
		p.ZAdd(ctx, s.indexKey(user), redis.Z{Member: id})
	})
	if err != nil {
		return fmt.Errorf("store: create session: %w", err)
	}
	if n, _ := created.Int(); n == 0 {
		return store.ErrSessionExists
	}
	return nil
}

// GetSession reads a session; found is false when the user has none with
// that ID.
func (s *Store) GetSession(ctx context.Context, user, id string) (sess store.Session, found bool, err error) {
	k := s.sessionKeys(user, id)
	var meta *redis.SliceCmd
	var state *redis.MapStringStringCmd
	err = s.pipelined(ctx, func(p redis.Pipeliner) {
		meta = readMeta(ctx, p, k)
		state = p.HGetAll(ctx, k.state)
	})
	if err != nil {
		return store.Session{}, false, fmt.Errorf("store: get session: %w", err)
	}
	sess, found = sessionFrom(user, id, meta.Val(), state.Val())
	return sess, found, nil
}

// ListSessions returns up to limit of the user's sessions whose IDs sort
// after the given one (all from the start when after is empty), in ID order.
func (s *Store) ListSessions(ctx context.Context, user, after string, limit int) ([]store.Session, error) {
	min := "-"
	if after != "" {
		min = "(" + after
	}
	ids, err := s.rdb.ZRangeArgs(ctx, redis.ZRangeArgs{
		Key: s.indexKey(user), Start: min, Stop: "+", ByLex: true, Count: int64(limit),
	}).Result()
	if err != nil {
		return nil, fmt.Errorf("store: list sessions: %w", err)
	}
	if len(ids) == 0 {
		return nil, nil
	}
	metas := make([]*redis.SliceCmd, len(ids))
	states := make([]*redis.MapStringStringCmd, len(ids))
	err = s.pipelined(ctx, func(p redis.Pipeliner) {
		for i, id := range ids {
			k := s.sessionKeys(user, id)
			metas[i] = readMeta(ctx, p, k)
			states[i] = p.HGetAll(ctx, k.state)
		}
	})
	if err != nil {
		return nil, fmt.Errorf("store: list sessions: %w", err)
	}
	out := make([]store.Session, 0, len(ids))
	for i, id := range ids {
		if sess, found := sessionFrom(user, id, metas[i].Val(), states[i].Val()); found { // an index entry whose session is gone is skipped
			out = append(out, sess)
		}
	}
	return out, nil
}

var patchStateScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
for i = 2, #ARGV, 2 do redis.call('HSET', KEYS[2], ARGV[i], ARGV[i+1]) end
redis.call('HSET', KEYS[1], 'updatedAt', ARGV[1])
return 1
`)

// PatchState merges delta into the session state, key by key (a shallow
// merge: each key replaces the whole value), and returns the session.
func (s *Store) PatchState(ctx context.Context, user, id string, delta map[string]json.RawMessage, now string) (store.Session, bool, error) {
	k := s.sessionKeys(user, id)
	args := append([]any{now}, stateArgs(delta)...)
	var meta *redis.SliceCmd
	var state *redis.MapStringStringCmd
	err := s.pipelined(ctx, func(p redis.Pipeliner) {
		patchStateScript.Run(ctx, p, []string{k.meta, k.state}, args...)
		meta = readMeta(ctx, p, k)
		state = p.HGetAll(ctx, k.state)
	})
	if err != nil {
		return store.Session{}, false, fmt.Errorf("store: patch session: %w", err)
	}
	sess, found := sessionFrom(user, id, meta.Val(), state.Val())
	return sess, found, nil
}

// deleteSessionScript deletes a session's keys unless a response holds it.
// KEYS: meta, state, msgs, lease, responses (an older session's set),
// assets, assetBytes, waits;
// ARGV[1]: the session's tag. It returns {0, 0} when there is no session,
// {-1, 0} when it is held, otherwise {1, the assets' bytes, the escaped
// IDs of its waits...}.
var deleteSessionScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return {0, 0} end
if redis.call('EXISTS', KEYS[4]) == 1 then return {-1, 0} end
local function deleteResponse(id)
  -- :e: is the event log as versions before the sorted set kept it.
  redis.call('DEL', ARGV[1] .. ':r:' .. id, ARGV[1] .. ':l:' .. id, ARGV[1] .. ':e:' .. id, ARGV[1] .. ':h:' .. id,
    ARGV[1] .. ':x:' .. id, ARGV[1] .. ':q:' .. id, ARGV[1] .. ':j:' .. id, ARGV[1] .. ':y:' .. id,
    ARGV[1] .. ':z:' .. id)
end
for _, field in ipairs(redis.call('HKEYS', KEYS[1])) do
  if string.sub(field, 1, 2) == 'r:' then deleteResponse(string.sub(field, 3)) end
end
-- Sessions made before the responses were meta fields list them in a set.
for _, id in ipairs(redis.call('SMEMBERS', KEYS[5])) do deleteResponse(id) end
for _, id in ipairs(redis.call('SMEMBERS', KEYS[6])) do
  redis.call('DEL', ARGV[1] .. ':ad:' .. id, ARGV[1] .. ':am:' .. id)
end
local out = {1, tonumber(redis.call('GET', KEYS[7]) or '0') or 0}
for _, id in ipairs(redis.call('ZRANGE', KEYS[8], 0, -1)) do
  redis.call('DEL', ARGV[1] .. ':w:' .. id)
  out[#out + 1] = id
end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[5], KEYS[6], KEYS[7], KEYS[8], ARGV[1] .. ':o')
return out
`)

// DeleteSession removes a session with its state, transcript, responses,
// assets and waits, gives the assets' bytes back to the user's quota and
// takes the waits out of the user's index (so a deleted session's wait is
// not found, nor answered). It returns ErrSessionBusy while a response
// holds the session.
func (s *Store) DeleteSession(ctx context.Context, user, id string) (found bool, err error) {
	k := s.sessionKeys(user, id)
	res, err := deleteSessionScript.Run(ctx, s.rdb,
		[]string{k.meta, k.state, k.msgs, k.lease, k.responses, k.assets(), k.assetBytes(), k.waits()}, k.tag).Slice()
	if err != nil {
		return false, fmt.Errorf("store: delete session: %w", err)
	}
	status, freed, waits, ok := deleteReply(res)
	if !ok {
		return false, fmt.Errorf("store: delete session: unexpected reply %v", res)
	}
	switch status {
	case 0:
		return false, nil
	case -1:
		return true, store.ErrSessionBusy
	}
	// What the user's tag holds of the session goes in one script (one
	// slot): its index entry, its assets' bytes, its waits' entries.
	keys := []string{s.indexKey(user), s.userAssetBytesKey(user)}
	for _, w := range waits {
		keys = append(keys, s.waitIndexPrefix(user)+w)
	}
	if err := forgetSessionScript.Run(ctx, s.rdb, keys, id, freed).Err(); err != nil {
		return true, fmt.Errorf("store: delete session from the user's indexes: %w", err)
	}
	return true, nil
}

// forgetSessionScript removes a deleted session from its user's keys:
// KEYS[1] the session index, KEYS[2] the user's asset bytes, the rest the
// user's index entries of its waits; ARGV[1] the session ID, ARGV[2] the
// bytes its assets held. An index entry that names another session (a
// wait ID used again) is kept.
var forgetSessionScript = redis.NewScript(`
redis.call('ZREM', KEYS[1], ARGV[1])
if tonumber(ARGV[2]) > 0 then redis.call('DECRBY', KEYS[2], ARGV[2]) end
for i = 3, #KEYS do
  if redis.call('GET', KEYS[i]) == ARGV[1] then redis.call('DEL', KEYS[i]) end
end
return 1
`)

// deleteReply reads deleteSessionScript's reply.
func deleteReply(res []any) (status, freed int64, waits []string, ok bool) {
	if len(res) < 2 {
		return 0, 0, nil, false
	}
	status, ok1 := res[0].(int64)
	freed, ok2 := res[1].(int64)
	for _, v := range res[2:] {
		w, isString := v.(string)
		if !isString {
			return 0, 0, nil, false
		}
		waits = append(waits, w)
	}
	return status, freed, waits, ok1 && ok2
}

// stateArgs flattens a state map into HSET field/value arguments.
func stateArgs(state map[string]json.RawMessage) []any {
	args := make([]any, 0, 2*len(state))
	for key, value := range state {
		args = append(args, key, string(value))
	}
	return args
}

func sessionFrom(user, id string, meta []any, state map[string]string) (store.Session, bool) {
	if len(meta) != 2 {
		return store.Session{}, false
	}
	createdAt, ok := meta[0].(string)
	if !ok {
		return store.Session{}, false // no meta: no such session
	}
	updatedAt, _ := meta[1].(string)
	sess := store.Session{
		ID: id, UserID: user,
		State:     make(map[string]json.RawMessage, len(state)),
		CreatedAt: createdAt, UpdatedAt: updatedAt,
	}
	for key, value := range state {
		sess.State[key] = json.RawMessage(value)
	}
	return sess, true
}

// readMeta queues the read of what a session's meta tells of it: its
// createdAt and updatedAt (not its responses' fields, which grow with it).
func readMeta(ctx context.Context, p redis.Pipeliner, k sessionKeys) *redis.SliceCmd {
	return p.HMGet(ctx, k.meta, "createdAt", "updatedAt")
}
