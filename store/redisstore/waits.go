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

// A wait is what a suspended response waits for: a human approval or a
// client tool's output. It is stored with the requires_action receipt, under
// the session's tag, and indexed by its ID under the user's tag so that
// POST /approvals/{id} finds it from the ID alone. Any replica may answer;
// Resolve changes its status exactly once.

func (k sessionKeys) wait(id string) string { return k.tag + ":w:" + escapeID(id) }

// waits is the ZSET of the session's wait IDs (escaped), scored by the
// time in Unix ms their records expire, so that DeleteSession finds them
// (and their entries in the user's index). Entries of expired records are
// dropped whenever a wait is added.
func (k sessionKeys) waits() string { return k.tag + ":waits" }

// waitIndexKey is the user's index entry of a wait: a STRING holding the
// wait's session, under the user's tag.
func (s *Store) waitIndexKey(user, id string) string { return s.waitIndexPrefix(user) + escapeID(id) }

// waitIndexPrefix starts the keys of the user's wait index; an escaped
// wait ID completes one.
func (s *Store) waitIndexPrefix(user string) string {
	return s.prefix + "{u:" + escapeID(user) + "}:w:"
}

// waitTombstone keeps a resolved wait readable a while, so a second answer
// gets 409 rather than 404.
const waitTombstone = time.Minute

// indexWait is the bookkeeping step that adds a wait to its user's index,
// for as long as its record lives. An entry whose record is missing (not
// written yet, or never) reads as no wait (see readWait).
func (s *Store) indexWait(ctx context.Context, user, session string, w *store.Wait) bookkeeping {
	ttl := time.Until(w.ExpiresAt) + waitTombstone
	key := s.waitIndexKey(user, w.ID)
	return func(p redis.Pipeliner) { p.Set(ctx, key, session, ttl) }
}

// GetWait reads one of the user's waits by ID; found is false when the user
// has none with that ID (or it is long gone).
func (s *Store) GetWait(ctx context.Context, user, id string) (store.Wait, bool, error) {
	session, found, err := s.getString(ctx, s.waitIndexKey(user, id), "read wait")
	if err != nil || !found {
		return store.Wait{}, false, err
	}
	return s.readWait(ctx, user, session, id)
}

func (s *Store) readWait(ctx context.Context, user, session, id string) (store.Wait, bool, error) {
	h, err := s.rdb.HGetAll(ctx, s.sessionKeys(user, session).wait(id)).Result()
	if err != nil {
		return store.Wait{}, false, fmt.Errorf("store: read wait: %w", err)
	}
	if len(h) == 0 {
		return store.Wait{}, false, nil
	}
	ms, _ := strconv.ParseInt(h["expiresAt"], 10, 64)
	after, _ := strconv.Atoi(h["after"])
	w := store.Wait{
		ID: id, Kind: h["kind"], ResponseID: h["responseId"], Session: session, Status: h["status"],
		ExpiresAt: time.UnixMilli(ms), AfterSequence: after, Replica: h["replica"],
	}
	if out, ok := h["output"]; ok {
		w.Output = []byte(out)
	}
	epoch, err := s.rdb.Get(ctx, s.sessionKeys(user, session).epoch(w.ResponseID)).Int()
	switch {
	case errors.Is(err, redis.Nil):
		epoch = 1
	case err != nil:
		return store.Wait{}, false, fmt.Errorf("store: read wait: %w", err)
	}
	w.Epoch = max(epoch, 1)
	return w, true, nil
}

// resolveWaitScript answers a wait. KEYS: 1 the wait, 2 its response's
// receipt, 3 event log, 4 epoch. ARGV: 1 the status, 2 now in Unix ms, 3
// the output, 4 the kind. It returns {outcome, status, the run's epoch}.
var resolveWaitScript = redis.NewScript(finalReceiptLua + `
local epoch = redis.call('GET', KEYS[4]) or '1'
local status = redis.call('HGET', KEYS[1], 'status')
if not status or redis.call('HGET', KEYS[1], 'kind') ~= ARGV[4] then return {'missing', '', epoch} end
if status ~= 'pending' then return {'already', status, epoch} end
if tonumber(redis.call('HGET', KEYS[1], 'expiresAt')) <= tonumber(ARGV[2]) then
  redis.call('HSET', KEYS[1], 'status', 'expired')
  return {'already', 'expired', epoch}
end
if redis.call('EXISTS', KEYS[2]) == 0 or finished(KEYS[2], KEYS[3]) then
  return {'unavailable', status, epoch}
end
redis.call('HSET', KEYS[1], 'status', ARGV[1])
if ARGV[3] ~= '' then redis.call('HSET', KEYS[1], 'output', ARGV[3]) end
return {'ok', ARGV[1], epoch}
`)

// ResolveWait answers a pending wait of the given kind exactly once: status
// becomes approved, denied or submitted (with output), whether or not a
// replica holds the response. It fails with store.ErrWaitResolved (and the
// current status) or store.ErrWaitUnavailable (the response is over); the
// returned wait has an empty ID when the user has no such wait of that
// kind, and the run's epoch otherwise.
func (s *Store) ResolveWait(ctx context.Context, user, id, kind, status string, output []byte, now time.Time) (w store.Wait, current string, err error) {
	w, found, err := s.GetWait(ctx, user, id)
	if err != nil || !found || w.Kind != kind {
		return store.Wait{}, "", err
	}
	k := s.sessionKeys(user, w.Session)
	res, err := resolveWaitScript.Run(ctx, s.rdb, []string{k.wait(id), k.receipt(w.ResponseID), k.events(w.ResponseID), k.epoch(w.ResponseID)},
		status, now.UnixMilli(), string(output), kind).StringSlice()
	if err != nil {
		return w, "", fmt.Errorf("store: resolve wait: %w", err)
	}
	if epoch, err := strconv.Atoi(res[2]); err == nil {
		w.Epoch = max(epoch, 1)
	}
	switch res[0] {
	case "ok":
		w.Status, w.Output = status, output
		return w, status, nil
	case "already":
		return w, res[1], store.ErrWaitResolved
	case "unavailable":
		return w, w.Status, store.ErrWaitUnavailable
	}
	return store.Wait{}, "", nil // gone between the two reads
}

// FinishWait sets a wait's status when the response ends it (expired or
// cancelled), unless it was already answered; store.ErrFenced when the
// run's epoch is not epoch.
func (s *Store) FinishWait(ctx context.Context, user, session, responseID, id, status string, epoch int) error {
	k := s.sessionKeys(user, session)
	res, err := finishWaitScript.Run(ctx, s.rdb, []string{k.wait(id), k.epoch(responseID)}, status, epochArg(epoch), responseID).Int()
	if err != nil {
		return fmt.Errorf("store: finish wait: %w", err)
	}
	if res == -2 {
		return store.ErrFenced
	}
	return nil
}

// finishWaitScript: KEYS 1 the wait, 2 its run's epoch; ARGV 1 the status,
// 2 the writer's epoch, 3 the response ID. -2: fenced.
var finishWaitScript = redis.NewScript(fencedLua + `
if fenced(KEYS[2], ARGV[2]) then return -2 end
if redis.call('HGET', KEYS[1], 'status') == 'pending' and redis.call('HGET', KEYS[1], 'responseId') == ARGV[3] then
  redis.call('HSET', KEYS[1], 'status', ARGV[1])
end
return 1
`)

// ReadWait reads a wait of a known session (the replica that holds the
// response reads the answer this way).
func (s *Store) ReadWait(ctx context.Context, user, session, id string) (store.Wait, bool, error) {
	return s.readWait(ctx, user, session, id)
}
