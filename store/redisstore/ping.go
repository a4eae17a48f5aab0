package redisstore

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// Ping checks that the store answers, within the store's timeout (or ctx's
// deadline, when that comes first). It is what readiness reports: a Redis
// that is down, unreachable or hung makes it fail, and so does a closed
// store. On a Cluster every master must answer (see pingMasters).
func (s *Store) Ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	if cluster, ok := s.rdb.(*redis.ClusterClient); ok {
		return pingMasters(ctx, cluster)
	}
	return s.rdb.Ping(ctx).Err()
}

// pingMasters pings every master of the Cluster's slot map, which it
// reloads first, so that the answer is the same from one call to the next.
// (A Cluster client sends a plain PING to one master after another: while
// its slot map still named a master that had failed over, every third
// PING failed, and readiness flapped.) The reload gets half of ctx's time:
// a node that does not answer CLUSTER SLOTS then leaves the map as it was,
// and the pings their own time.
func pingMasters(ctx context.Context, cluster *redis.ClusterClient) error {
	reloadCtx := ctx
	if deadline, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		reloadCtx, cancel = context.WithTimeout(ctx, time.Until(deadline)/2)
		defer cancel()
	}
	return cluster.ForEachMaster(reloadCtx, func(_ context.Context, master *redis.Client) error {
		if err := master.Ping(ctx).Err(); err != nil {
			return fmt.Errorf("the master at %s: %w", master.Options().Addr, err)
		}
		return nil
	})
}
