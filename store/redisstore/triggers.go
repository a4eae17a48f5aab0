package redisstore

import (
	"context"
	"fmt"
	"time"

	"github.com/harnest/harnest/store"
)

// Inbound triggers' deliveries are one key each, set with NX and a TTL
// (a single key per call: Cluster-safe):
//
//	<prefix>trigger:<trigger>:<id>  "1", expiring after the TTL

func (s *Store) deliveryKey(trigger, id string) string {
	return s.prefix + "trigger:" + escapeID(trigger) + ":" + escapeID(id)
}

// RememberDelivery records a delivery with SET NX PX: fresh when it set it.
func (s *Store) RememberDelivery(ctx context.Context, trigger, id string, ttl time.Duration) (bool, error) {
	if ttl < time.Millisecond {
		ttl = time.Millisecond
	}
	fresh, err := s.rdb.SetNX(ctx, s.deliveryKey(trigger, id), "1", ttl).Result()
	if err != nil {
		return false, fmt.Errorf("store: remember a delivery of trigger %q: %w", trigger, err)
	}
	return fresh, nil
}

// ForgetDelivery deletes a delivery's record.
func (s *Store) ForgetDelivery(ctx context.Context, trigger, id string) error {
	if err := s.rdb.Del(ctx, s.deliveryKey(trigger, id)).Err(); err != nil {
		return fmt.Errorf("store: forget a delivery of trigger %q: %w", trigger, err)
	}
	return nil
}

var _ store.TriggerDeliveries = (*Store)(nil)
