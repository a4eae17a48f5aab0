package redisstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"
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
