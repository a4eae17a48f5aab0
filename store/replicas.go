package store

import (
	"context"
	"time"
)

// Replicas are the liveness records of the replicas that share the store: a
// replica renews its own often (every second or so) with a short TTL, so that
// the others learn within seconds that it died or froze, without waiting
// for the leases of its runs to lapse.
type Replicas interface {
	// Heartbeat records that replica is alive until now+ttl.
	Heartbeat(ctx context.Context, replica string, ttl time.Duration, now time.Time) error
	// LapsedReplicas returns up to limit replicas whose liveness record
	// lapsed at or before now and was not forgotten: their runs are due.
	LapsedReplicas(ctx context.Context, now time.Time, limit int) ([]string, error)
	// LiveReplicas returns up to limit replicas whose liveness record
	// lapses after now: those that may claim the runs another hands off.
	LiveReplicas(ctx context.Context, now time.Time, limit int) ([]string, error)
	// ForgetReplica drops a replica's liveness record when it lapsed at
	// or before now (a replica that renewed it since keeps it).
	ForgetReplica(ctx context.Context, replica string, now time.Time) error
}
