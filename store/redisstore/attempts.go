package redisstore

import (
	"context"

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
	_, err := s.runAttemptScript(ctx, markHandOffScript, k, responseID, k.handedOff(responseID), epoch, "mark a run handed off")
	return err
}

// SpendAttempt counts one more attempt of a run in one script: see
// store.Attempts.
func (s *Store) SpendAttempt(ctx context.Context, user, session, responseID string, epoch int) (int, error) {
	k := s.sessionKeys(user, session)
	return s.runAttemptScript(ctx, spendAttemptScript, k, responseID, k.attempts(responseID), epoch, "spend an attempt")
}

// runAttemptScript runs markHandOffScript or spendAttemptScript on the
// run's key mark (KEYS[2]) and returns the script's count, or
// store.ErrFenced or store.ErrReceiptFinal for its refusals; what names
// the operation in any other error.
func (s *Store) runAttemptScript(ctx context.Context, script *redis.Script, k sessionKeys, responseID, mark string, epoch int, what string) (int, error) {
	n, err := s.runCountingScript(ctx, script, []string{k.epoch(responseID), mark, k.receipt(responseID), k.events(responseID)},
		what, attemptRefusals, epochArg(epoch), millis(s.receiptTTL))
	return int(n), err
}

// attemptRefusals are the refusals of markHandOffScript and
// spendAttemptScript.
var attemptRefusals = map[int64]error{-2: store.ErrFenced, -1: store.ErrReceiptFinal}
