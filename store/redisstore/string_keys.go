package redisstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// getString reads a STRING key in one GET; found is false when there is
// no such key. what names the read in its error.
func (s *Store) getString(ctx context.Context, key, what string) (v string, found bool, err error) {
	v, err = s.rdb.Get(ctx, key).Result()
	if errors.Is(err, redis.Nil) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("store: %s: %w", what, err)
	}
	return v, true, nil
}
