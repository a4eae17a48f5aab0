package redisstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/harnest/harnest/store"

	"github.com/redis/go-redis/v9"
)

// ReplaceReceipt replaces a receipt that is not final, without touching the
// session: a resumed response is in_progress again, and a response whose
// step could not be committed (lease lost) records its failure. It returns
// ErrReceiptFinal, writing nothing, when the receipt is already final.
//
// A response written in one step keeps its final receipt in its log,
// which is then a plain string (events.go). Both keys are watched; a
// write to either meanwhile (a flush of the response's events, a sweeper
// failing it) reads them again.
func (s *Store) ReplaceReceipt(ctx context.Context, user, session, responseID string, epoch int, receipt []byte) error {
	k := s.sessionKeys(user, session)
	key, log, epochKey := k.receipt(responseID), k.events(responseID), k.epoch(responseID)
	replace := func(tx *redis.Tx) error {
		var current, runEpoch *redis.StringCmd
		var logType *redis.StatusCmd
		_, _ = tx.Pipelined(ctx, func(p redis.Pipeliner) error {
			current = p.Get(ctx, key)
			logType = p.Type(ctx, log)
			runEpoch = p.Get(ctx, epochKey)
			return nil
		})
		if e, err := runEpoch.Result(); errors.Is(err, redis.Nil) {
			if epochArg(epoch) != "1" {
				return store.ErrFenced
			}
		} else if err != nil {
			return err
		} else if e != epochArg(epoch) {
			return store.ErrFenced
		}
		b, err := current.Bytes()
		if err != nil && !errors.Is(err, redis.Nil) {
			return err
		}
		if err == nil && store.IsFinalReceipt(b) {
			return store.ErrReceiptFinal
		}
		if kind, err := logType.Result(); err != nil {
			return err
		} else if kind == "string" {
			return store.ErrReceiptFinal
		}
		_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Set(ctx, key, receipt, s.receiptTTL)
			return nil
		})
		return err
	}
	var err error
	for range maxReplaceTries {
		err = s.rdb.Watch(ctx, replace, key, log, epochKey)
		if !errors.Is(err, redis.TxFailedErr) {
			break
		}
	}
	switch {
	case err == nil || errors.Is(err, store.ErrReceiptFinal) || errors.Is(err, store.ErrFenced):
		return err
	case errors.Is(err, redis.TxFailedErr):
		return fmt.Errorf("store: write receipt: the response's receipt or log changed on each of %d tries: %w", maxReplaceTries, err)
	}
	return fmt.Errorf("store: write receipt: %w", err)
}

// maxReplaceTries bounds ReplaceReceipt's reads and writes when the keys
// it watches keep changing.
const maxReplaceTries = 16

// renewScript extends the response's lease, or takes it again when it
// lapsed, nobody else took it, the session still exists and its receipt
// is not final (the replica lived through a Redis outage longer than the
// lease, and nobody failed the response or deleted the session
// meanwhile); see finalReceiptLua for how it tells a finished response.
// KEYS: lease, receipt, session meta, event log, the run's epoch, then
// the run registry where one server holds every key. ARGV: response ID,
// lease in ms, the renewer's epoch, the run's score and member in the
// registry. It returns -2, renewing and registering nothing, when the
// renewer's epoch is not the run's (fenced); otherwise the run is
// registered again (with the registry key) and 1 is renewed, 0 not.
var renewScript = redis.NewScript(finalReceiptLua + fencedLua + `
if fenced(KEYS[5], ARGV[3]) then return -2 end
if KEYS[6] then redis.call('ZADD', KEYS[6], ARGV[4], ARGV[5]) end
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
if holder then return 0 end
if redis.call('EXISTS', KEYS[3]) == 0 then return 0 end
if finished(KEYS[2], KEYS[4]) then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
`)

// RenewLease extends the response's hold on its session, and refreshes its
// entry among the running responses; false means the response does not
// hold the session (another one does, the receipt is final, or the
// session is gone).
func (s *Store) RenewLease(ctx context.Context, user, session, responseID, replica string, epoch int, lease time.Duration) (bool, error) {
	k := s.sessionKeys(user, session)
	keys := []string{k.lease, k.receipt(responseID), k.meta, k.events(responseID), k.epoch(responseID)}
	if !s.clustered {
		keys = append(keys, s.runsKey())
	}
	member := runMemberAt(user, session, responseID, replica, epoch)
	var renewed *redis.Cmd
	// The script registers the run itself where one server holds every
	// key. On a Cluster the registry is another slot's: the run is
	// registered after the script, unless it refused a stale epoch (a
	// renewal there costs two round trips; it is every third of a lease,
	// off the turn's path).
	err := s.pipelined(ctx, func(p redis.Pipeliner) {
		renewed = renewScript.Run(ctx, p, keys, responseID, lease.Milliseconds(), epochArg(epoch),
			time.Now().Add(lease).UnixMilli(), member)
	})
	n, _ := renewed.Int()
	if err == nil && n == -2 {
		return false, store.ErrFenced
	}
	if err == nil {
		err = s.sendBookkeeping(ctx, s.registerRun(ctx, user, session, responseID, replica, epoch, lease))
	}
	return n == 1, err
}

// Receipt reads a response's receipt in the user's session; found is false
// when there is none. It is in its own key, or for a response written in
// one step in its log (events.go): both are read, in one round trip.
func (s *Store) Receipt(ctx context.Context, user, session, responseID string) ([]byte, bool, error) {
	k := s.sessionKeys(user, session)
	var own, log *redis.StringCmd
	_, _ = s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		own = p.Get(ctx, k.receipt(responseID))
		log = p.Get(ctx, k.events(responseID))
		return nil
	})
	b, err := own.Bytes()
	if err == nil {
		return b, true, nil
	}
	if !errors.Is(err, redis.Nil) {
		return nil, false, fmt.Errorf("store: read receipt: %w", err)
	}
	text, err := log.Result()
	switch {
	case errors.Is(err, redis.Nil) || redis.HasErrorPrefix(err, "WRONGTYPE"):
		return nil, false, nil // no log, or a sorted set: no receipt in it
	case err != nil:
		return nil, false, fmt.Errorf("store: read receipt: %w", err)
	}
	receipt, _, err := splitOneStepLog(text)
	if err != nil {
		return nil, false, fmt.Errorf("store: read receipt: %w", err)
	}
	return receipt, receipt != nil, nil
}
