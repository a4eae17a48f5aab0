package redisstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"

	"github.com/harnest/harnest/store"
)

// ActiveResponse returns the response that holds the session's lease now
// ("" when none): the lease key, which lapses with the lease.
func (s *Store) ActiveResponse(ctx context.Context, user, session string) (string, error) {
	id, err := s.rdb.Get(ctx, s.sessionKeys(user, session).lease).Result()
	switch {
	case errors.Is(err, redis.Nil):
		return "", nil
	case err != nil:
		return "", fmt.Errorf("store: read the session's lease: %w", err)
	}
	return id, nil
}

// order is the key of a session's responses in order: a sorted set of
// response IDs (as they are) by sequence, from 1.
func (k sessionKeys) order() string { return k.tag + ":o" }

// SessionResponses returns up to limit of the session's responses, newest
// first, below sequence before (before < 1: from the newest): one
// ZREVRANGEBYSCORE, O(log N + limit).
func (s *Store) SessionResponses(ctx context.Context, user, session string, before int64, limit int) ([]store.SessionResponse, error) {
	if limit < 1 {
		return nil, nil
	}
	top := "+inf"
	if before >= 1 {
		top = "(" + strconv.FormatInt(before, 10)
	}
	rows, err := s.rdb.ZRevRangeByScoreWithScores(ctx, s.sessionKeys(user, session).order(), &redis.ZRangeBy{
		Max: top, Min: "-inf", Count: int64(limit),
	}).Result()
	if err != nil {
		return nil, fmt.Errorf("store: list the session's responses: %w", err)
	}
	out := make([]store.SessionResponse, 0, len(rows))
	for _, z := range rows {
		id, _ := z.Member.(string)
		out = append(out, store.SessionResponse{ID: id, Seq: int64(z.Score)})
	}
	return out, nil
}
