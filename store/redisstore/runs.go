package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/harnest/harnest/store"

	"github.com/redis/go-redis/v9"
)

// Every response that holds a session is registered in one sorted set,
// scored by the time its lease lapses unless renewed. A replica that dies
// stops renewing; any replica's sweeper then finds the run, sees that its
// lease is gone, and records its receipt as failed, so nothing stays
// in_progress forever.

func (s *Store) runsKey() string { return s.runs }

// runRef names a registered run and the replica that runs it.
type runRef struct {
	User     string `json:"u"`
	Session  string `json:"s"`
	Response string `json:"r"`
	Replica  string `json:"p,omitempty"`
}

func runMember(user, session, responseID, replica string) string {
	b, _ := json.Marshal(runRef{user, session, responseID, replica})
	return string(b)
}

// registerRun is the bookkeeping step that registers a run, or refreshes
// its score when it is registered already.
func (s *Store) registerRun(ctx context.Context, user, session, responseID, replica string, lease time.Duration) bookkeeping {
	score := float64(time.Now().Add(lease).UnixMilli())
	member := runMember(user, session, responseID, replica)
	return func(p redis.Pipeliner) {
		p.ZAdd(ctx, s.runsKey(), redis.Z{Score: score, Member: member})
	}
}

// unregisterRun is the bookkeeping step that forgets a run.
func (s *Store) unregisterRun(ctx context.Context, user, session, responseID, replica string) bookkeeping {
	return s.forgetRun(ctx, runMember(user, session, responseID, replica))
}

// forgetRun is the bookkeeping step that removes a member of the registry.
func (s *Store) forgetRun(ctx context.Context, member string) bookkeeping {
	return func(p redis.Pipeliner) { p.ZRem(ctx, s.runsKey(), member) }
}

// SweepLapsed finds up to limit runs whose lease lapsed before now. A run
// for which due returns false is left alone (looked at again later). For
// the others, failed(run, receipt) gives the receipt to record in place of
// a receipt that is not final (nil keeps it; failed is not asked about a
// final or missing receipt, which is kept as it is); the run is then
// forgotten.
// Several replicas may sweep at once: a receipt is replaced only if it did
// not change since it was read. It returns the runs it failed.
func (s *Store) SweepLapsed(ctx context.Context, now time.Time, limit int, due func(store.Lapsed) bool, failed func(store.Lapsed, []byte) []byte) ([]store.Lapsed, error) {
	members, err := s.rdb.ZRangeArgs(ctx, redis.ZRangeArgs{
		Key: s.runsKey(), Start: "-inf", Stop: now.UnixMilli(), ByScore: true, Count: int64(limit),
	}).Result()
	if err != nil {
		return nil, fmt.Errorf("store: sweep runs: %w", err)
	}
	var out []store.Lapsed
	for _, m := range members {
		var ref runRef
		if json.Unmarshal([]byte(m), &ref) != nil {
			s.rdb.ZRem(ctx, s.runsKey(), m)
			continue
		}
		run := store.Lapsed{User: ref.User, Session: ref.Session, ResponseID: ref.Response, Replica: ref.Replica}
		if !due(run) {
			continue
		}
		swept, err := s.sweepOne(ctx, &run, m, failed)
		if swept {
			out = append(out, run)
		}
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// sweepOne fails one lapsed run, unless its lease is held again, and
// forgets it. On a Cluster the run is forgotten after its receipt is
// failed: a crash in between leaves it registered, and the next sweep
// finds its receipt final and only forgets it. It sets the run's Webhook.
func (s *Store) sweepOne(ctx context.Context, run *store.Lapsed, member string, failed func(store.Lapsed, []byte) []byte) (bool, error) {
	k := s.sessionKeys(run.User, run.Session)
	forget := s.forgetRun(ctx, member)
	swept, done := false, false
	err := s.watchOn(ctx, k.lease, func(tx *redis.Tx) error {
		var holder, receipt, webhook *redis.StringCmd
		_, err := tx.Pipelined(ctx, func(p redis.Pipeliner) error {
			p.Do(ctx, "watch", k.lease, k.receipt(run.ResponseID))
			holder = p.Get(ctx, k.lease)
			receipt = p.Get(ctx, k.receipt(run.ResponseID))
			webhook = p.Get(ctx, k.webhook(run.ResponseID))
			return nil
		})
		if err != nil && !errors.Is(err, redis.Nil) {
			_ = tx.Unwatch(ctx).Err()
			return err
		}
		if holder.Val() == run.ResponseID {
			// Still held: the holder renews it; its score is refreshed then.
			return tx.Unwatch(ctx).Err()
		}
		// A missing receipt (expired, or its session deleted) has nothing
		// to fail, and a final one never changes: failed is not asked
		// then, and the run is only forgotten.
		run.Webhook = webhook.Val()
		var replacement []byte
		if receipt.Err() == nil && !store.IsFinalReceipt([]byte(receipt.Val())) {
			replacement = failed(*run, []byte(receipt.Val()))
		}
		if replacement == nil && s.clustered {
			// Nothing to write under the session's slot: no transaction.
			done = true
			return tx.Unwatch(ctx).Err()
		}
		_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			if replacement != nil {
				p.Set(ctx, k.receipt(run.ResponseID), replacement, s.receiptTTL)
				p.Publish(ctx, s.eventsChannel(run.User, run.Session, run.ResponseID), -1)
			}
			s.queueBookkeeping(p, forget)
			return nil
		})
		swept = err == nil && replacement != nil
		done = err == nil
		return err
	})
	if errors.Is(err, redis.TxFailedErr) {
		return false, nil // changed meanwhile: the next sweep looks again
	}
	if err != nil || !done {
		return false, err
	}
	if err := s.sendBookkeeping(ctx, forget); err != nil {
		return swept, fmt.Errorf("store: sweep runs: forget a swept run: %w", err)
	}
	return swept, nil
}
