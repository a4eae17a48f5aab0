package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/harnest/harnest/runtime/store"

	"github.com/redis/go-redis/v9"
)

// Every response that holds a session is registered in one sorted set,
// scored by the time its lease lapses unless renewed. A replica that dies
// stops renewing; any replica's sweeper then finds the run, sees that its
// lease is gone, and records its receipt as failed, so nothing stays
// in_progress forever.

func (s *Store) runsKey() string { return s.prefix + "{runs}:active" }

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

func (s *Store) registerRun(ctx context.Context, p redis.Pipeliner, user, session, responseID, replica string, lease time.Duration) {
	p.ZAdd(ctx, s.runsKey(), redis.Z{Score: float64(time.Now().Add(lease).UnixMilli()), Member: runMember(user, session, responseID, replica)})
}

func (s *Store) unregisterRun(ctx context.Context, p redis.Pipeliner, user, session, responseID, replica string) {
	p.ZRem(ctx, s.runsKey(), runMember(user, session, responseID, replica))
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
		swept, err := s.sweepOne(ctx, run, m, failed)
		if err != nil {
			return out, err
		}
		if swept {
			out = append(out, run)
		}
	}
	return out, nil
}

func (s *Store) sweepOne(ctx context.Context, run store.Lapsed, member string, failed func(store.Lapsed, []byte) []byte) (bool, error) {
	k := s.sessionKeys(run.User, run.Session)
	swept := false
	err := s.rdb.Watch(ctx, func(tx *redis.Tx) error {
		var holder, receipt *redis.StringCmd
		_, err := tx.Pipelined(ctx, func(p redis.Pipeliner) error {
			p.Do(ctx, "watch", k.lease, k.receipt(run.ResponseID))
			holder = p.Get(ctx, k.lease)
			receipt = p.Get(ctx, k.receipt(run.ResponseID))
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
		var replacement []byte
		if receipt.Err() == nil && !store.IsFinalReceipt([]byte(receipt.Val())) {
			replacement = failed(run, []byte(receipt.Val()))
		}
		_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			if replacement != nil {
				p.Set(ctx, k.receipt(run.ResponseID), replacement, s.receiptTTL)
				p.Publish(ctx, s.eventsChannel(run.User, run.Session, run.ResponseID), -1)
			}
			p.ZRem(ctx, s.runsKey(), member)
			return nil
		})
		swept = err == nil && replacement != nil
		return err
	})
	if errors.Is(err, redis.TxFailedErr) {
		return false, nil // changed meanwhile: the next sweep looks again
	}
	return swept, err
}
