package redisstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/harnest/harnest/runtime/store"

	"github.com/redis/go-redis/v9"
)

// ReplaceReceipt replaces a receipt that is not final, without touching the
// session: a resumed response is in_progress again, and a response whose
// step could not be committed (lease lost) records its failure. It returns
// ErrReceiptFinal, writing nothing, when the receipt is already final.
func (s *Store) ReplaceReceipt(ctx context.Context, user, session, responseID string, receipt []byte) error {
	key := s.sessionKeys(user, session).receipt(responseID)
	err := s.rdb.Watch(ctx, func(tx *redis.Tx) error {
		current, err := tx.Get(ctx, key).Bytes()
		if err != nil && !errors.Is(err, redis.Nil) {
			return err
		}
		if err == nil && store.IsFinalReceipt(current) {
			return store.ErrReceiptFinal
		}
		_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Set(ctx, key, receipt, s.receiptTTL)
			return nil
		})
		return err
	}, key)
	if errors.Is(err, redis.TxFailedErr) {
		return store.ErrReceiptFinal // only a final write races a holder's own writes
	}
	if err != nil && !errors.Is(err, store.ErrReceiptFinal) {
		return fmt.Errorf("store: write receipt: %w", err)
	}
	return err
}

// renewScript extends the response's lease, or takes it again when it
// lapsed, nobody else took it, the session still exists and its receipt
// is not final (the replica lived through a Redis outage longer than the
// lease, and nobody failed the response or deleted the session
// meanwhile); see finalReceiptLua for how it reads the receipt's status.
// KEYS: lease, receipt, session meta. ARGV: response ID, lease in ms.
var renewScript = redis.NewScript(finalReceiptLua + `
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
if holder then return 0 end
if redis.call('EXISTS', KEYS[3]) == 0 then return 0 end
local receipt = redis.call('GET', KEYS[2])
if receipt and isFinal(receipt) then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
`)

// RenewLease extends the response's hold on its session, and refreshes its
// entry among the running responses; false means the response does not
// hold the session (another one does, the receipt is final, or the
// session is gone).
func (s *Store) RenewLease(ctx context.Context, user, session, responseID, replica string, lease time.Duration) (bool, error) {
	k := s.sessionKeys(user, session)
	var renewed *redis.Cmd
	// Both commands may run again after NOSCRIPT (see pipelined): a renewal
	// and a registration are the same the second time.
	err := s.pipelined(ctx, func(p redis.Pipeliner) {
		renewed = renewScript.Run(ctx, p, []string{k.lease, k.receipt(responseID), k.meta}, responseID, lease.Milliseconds())
		s.registerRun(ctx, user, session, responseID, replica, lease)(p)
	})
	n, _ := renewed.Int()
	return n == 1, err
}

// Receipt reads a response's receipt in the user's session; found is false
// when there is none.
func (s *Store) Receipt(ctx context.Context, user, session, responseID string) ([]byte, bool, error) {
	k := s.sessionKeys(user, session)
	b, err := s.rdb.Get(ctx, k.receipt(responseID)).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("store: read receipt: %w", err)
	}
	return b, true, nil
}
