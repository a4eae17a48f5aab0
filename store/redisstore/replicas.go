package redisstore

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// The replicas' liveness records are one sorted set under the run
// registry's tag: member the replica's ID, score the time (Unix ms) its
// record lapses unless renewed.

func (s *Store) replicasKey() string { return s.prefix + "{runs}:replicas" }

// Heartbeat records that replica is alive until now+ttl: one ZADD.
func (s *Store) Heartbeat(ctx context.Context, replica string, ttl time.Duration, now time.Time) error {
	err := s.rdb.ZAdd(ctx, s.replicasKey(), redis.Z{Score: float64(now.Add(ttl).UnixMilli()), Member: replica}).Err()
	if err != nil {
		return fmt.Errorf("store: heartbeat: %w", err)
	}
	return nil
}

// LapsedReplicas returns up to limit replicas whose record lapsed at or
// before now, the earliest first.
func (s *Store) LapsedReplicas(ctx context.Context, now time.Time, limit int) ([]string, error) {
	return s.rangeByScore(ctx, "lapsed replicas", s.replicasKey(), "-inf", msScore(now), limit)
}

// forgetReplicaScript removes a replica's record when it lapsed at or
// before ARGV[2] (Unix ms). KEYS: the records. ARGV: the replica, now.
var forgetReplicaScript = redis.NewScript(`
local lapses = redis.call('ZSCORE', KEYS[1], ARGV[1])
if lapses and tonumber(lapses) <= tonumber(ARGV[2]) then redis.call('ZREM', KEYS[1], ARGV[1]) end
return 0
`)

// ForgetReplica drops replica's record when it lapsed at or before now.
func (s *Store) ForgetReplica(ctx context.Context, replica string, now time.Time) error {
	err := forgetReplicaScript.Run(ctx, s.rdb, []string{s.replicasKey()}, replica, now.UnixMilli()).Err()
	if err != nil && err != redis.Nil {
		return fmt.Errorf("store: forget replica: %w", err)
	}
	return nil
}

// LiveReplicas returns up to limit replicas whose record lapses after now:
// one ZRANGE BYSCORE.
func (s *Store) LiveReplicas(ctx context.Context, now time.Time, limit int) ([]string, error) {
	return s.rangeByScore(ctx, "live replicas", s.replicasKey(), "("+msScore(now), "+inf", limit)
}
