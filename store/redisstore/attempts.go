package redisstore

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/harnest/harnest/store"
)

// spendAttemptScript counts one more attempt of a run (see SpendAttempt).
// KEYS: 1 the run's epoch, 2 its attempts, 3 receipt, 4 event log. ARGV:
// 1 the writer's epoch, 2 the receipt TTL in ms. It returns -2 (fenced),
// -1 (final or gone), or the attempts so far.
var spendAttemptScript = redis.NewScript(finalReceiptLua + fencedLua + `
if fenced(KEYS[1], ARGV[1]) then return -2 end
if redis.call('EXISTS', KEYS[3]) == 0 or finished(KEYS[3], KEYS[4]) then return -1 end
local n = tonumber(redis.call('GET', KEYS[2]) or '1') + 1
redis.call('SET', KEYS[2], n, 'PX', ARGV[2])
return n
`)

// markHandOffScript marks a run handed off (see MarkHandOff). KEYS: 1 the
// run's epoch, 2 its hand-off mark, 3 receipt, 4 event log. ARGV: 1 the
// writer's epoch, 2 the receipt TTL in ms. It returns -2 (fenced), -1
// (final or gone) or 1.
var markHandOffScript = redis.NewScript(finalReceiptLua + fencedLua + `
if fenced(KEYS[1], ARGV[1]) then return -2 end
if redis.call('EXISTS', KEYS[3]) == 0 or finished(KEYS[3], KEYS[4]) then return -1 end
redis.call('SET', KEYS[2], '1', 'PX', ARGV[2])
return 1
`)

// MarkHandOff marks a run handed off in one script: see store.Attempts.
func (s *Store) MarkHandOff(ctx context.Context, user, session, responseID string, epoch int) error {
	k := s.sessionKeys(user, session)
	n, err := markHandOffScript.Run(ctx, s.rdb,
		[]string{k.epoch(responseID), k.handedOff(responseID), k.receipt(responseID), k.events(responseID)},
		epochArg(epoch), millis(s.receiptTTL)).Int()
	switch {
	case err != nil:
		return fmt.Errorf("store: mark a run handed off: %w", err)
	case n == -2:
		return store.ErrFenced
	case n == -1:
		return store.ErrReceiptFinal
	}
	return nil
}

// SpendAttempt counts one more attempt of a run in one script: see
// store.Attempts.
func (s *Store) SpendAttempt(ctx context.Context, user, session, responseID string, epoch int) (int, error) {
	k := s.sessionKeys(user, session)
	n, err := spendAttemptScript.Run(ctx, s.rdb,
		[]string{k.epoch(responseID), k.attempts(responseID), k.receipt(responseID), k.events(responseID)},
		epochArg(epoch), millis(s.receiptTTL)).Int()
	switch {
	case err != nil:
		return 0, fmt.Errorf("store: spend an attempt: %w", err)
	case n == -2:
		return 0, store.ErrFenced
	case n == -1:
		return 0, store.ErrReceiptFinal
	}
	return n, nil
}
