package redisstore

import "context"

// Ping checks that the store answers, within the store's timeout (or ctx's
// deadline, when that comes first). It is what readiness reports: a Redis
// that is down, unreachable or hung makes it fail, and so does a closed
// store.
func (s *Store) Ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	return s.rdb.Ping(ctx).Err()
}
