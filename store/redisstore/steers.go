package redisstore

import (
	"context"
	"fmt"

	"github.com/harnest/harnest/store"

	"github.com/redis/go-redis/v9"
)

// Steers kept for running responses (store.Steers): a response's steers
// are a list under its session's tag (steers), appended at its tail, kept
// as long as its receipt and deleted with the session.

// steers is the key of a response's kept steers.
func (k sessionKeys) steers(responseID string) string { return k.tag + ":g:" + escapeID(responseID) }

// appendSteerScript keeps a steer for a running response (AppendSteer).
// KEYS: 1 receipt, 2 event log, 3 steers. ARGV: 1 the steer, 2 the receipt
// TTL in ms. It returns 1 when kept, 0 when the receipt is final or gone,
// -1 when the response is queued.
var appendSteerScript = redis.NewScript(finalReceiptLua + `
if redis.call('EXISTS', KEYS[1]) == 0 or finished(KEYS[1], KEYS[2]) then return 0 end
if string.find(redis.call('GET', KEYS[1]), '"status":"queued"', 1, true) then return -1 end
redis.call('RPUSH', KEYS[3], ARGV[1])
redis.call('PEXPIRE', KEYS[3], ARGV[2])
return 1
`)

// appendSteerRefusals are appendSteerScript's refusals.
var appendSteerRefusals = map[int64]error{0: store.ErrReceiptFinal, -1: store.ErrResponseQueued}

// AppendSteer keeps a steer for a running response in one script: see
// store.Steers.
func (s *Store) AppendSteer(ctx context.Context, user, session, responseID string, steer []byte) error {
	k := s.sessionKeys(user, session)
	c := newScriptCall(appendSteerScript, 4, 1)
	c.key(k.receipt(responseID))
	c.key(k.events(responseID))
	c.key(k.steers(responseID))
	c.bytes(steer)
	c.num(millis(s.receiptTTL))
	_, err := s.runCounting(ctx, c, "keep a steer", appendSteerRefusals)
	return err
}

// takeSteersScript takes a response's kept steers (TakeSteers).
// KEYS: 1 steers, 2 the run's epoch. ARGV: 1 the taker's epoch.
// It returns -2 when fenced, otherwise the steers, in order.
var takeSteersScript = redis.NewScript(fencedLua + `
if fenced(KEYS[2], ARGV[1]) then return -2 end
local taken = redis.call('LRANGE', KEYS[1], 0, -1)
if #taken > 0 then redis.call('DEL', KEYS[1]) end
return taken
`)

// TakeSteers takes a response's kept steers in one script, fenced by the
// run's epoch: see store.Steers.
func (s *Store) TakeSteers(ctx context.Context, user, session, responseID string, epoch int) ([][]byte, error) {
	k := s.sessionKeys(user, session)
	c := newScriptCall(takeSteersScript, 3, 0)
	c.key(k.steers(responseID))
	c.key(k.epoch(responseID))
	c.str(epochArg(epoch))
	reply, err := s.runScript(ctx, c).Result()
	if err != nil {
		return nil, fmt.Errorf("store: take the steers: %w", err)
	}
	if n, ok := reply.(int64); ok && n == -2 {
		return nil, store.ErrFenced
	}
	list, _ := reply.([]any)
	var out [][]byte
	for _, v := range list {
		if b, ok := v.(string); ok {
			out = append(out, []byte(b))
		}
	}
	return out, nil
}
