package redisstore

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// rangeByScore reads up to limit members (limit <= 0: all) of the sorted
// set key whose scores lie from start to stop, lowest first: one ZRANGE
// BYSCORE. what names the read in its error.
func (s *Store) rangeByScore(ctx context.Context, what, key, start, stop string, limit int) ([]string, error) {
	count := int64(limit)
	if limit <= 0 {
		count = -1
	}
	members, err := s.rdb.ZRangeArgs(ctx, redis.ZRangeArgs{Key: key, Start: start, Stop: stop, ByScore: true, Count: count}).Result()
	if err != nil {
		return nil, fmt.Errorf("store: %s: %w", what, err)
	}
	return members, nil
}

// msScore is t as a score bound of the sorted sets scored in Unix ms.
func msScore(t time.Time) string { return strconv.FormatInt(t.UnixMilli(), 10) }

// membersDue reads up to limit members (limit <= 0: all) of the sorted set
// key whose scores (Unix ms) are at or before now, lowest first, as the
// keys parse makes of them (skipping those it refuses): one ZRANGE
// BYSCORE. what names the read in its error.
func membersDue[K any](ctx context.Context, s *Store, what, key string, now time.Time, limit int, parse func(string) (K, bool)) ([]K, error) {
	members, err := s.rangeByScore(ctx, what, key, "-inf", msScore(now), limit)
	if err != nil {
		return nil, err
	}
	out := make([]K, 0, len(members))
	for _, m := range members {
		if k, ok := parse(m); ok {
			out = append(out, k)
		}
	}
	return out, nil
}
