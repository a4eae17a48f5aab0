package memstore

import (
	"context"
	"sync"
	"time"

	"github.com/harnest/harnest/store"
)

// deliveriesSpace remembers inbound triggers' deliveries (the
// TriggerDeliveries slice) until they expire. Reads check the clock; the
// expired records are dropped when the map has doubled since the last
// sweep, so memory follows the deliveries of one TTL.
type deliveriesSpace struct {
	now    func() time.Time
	closed *closedFlag
	mu     sync.Mutex
	until  map[deliveryKey]time.Time
	swept  int // the map's size after the last sweep
}

type deliveryKey struct{ trigger, id string }

func newDeliveriesSpace(now func() time.Time, closed *closedFlag) *deliveriesSpace {
	return &deliveriesSpace{now: now, closed: closed, until: map[deliveryKey]time.Time{}}
}

// RememberDelivery records a delivery unless it is recorded and unexpired.
func (s *deliveriesSpace) RememberDelivery(ctx context.Context, trigger, id string, ttl time.Duration) (bool, error) {
	if err := s.closed.check(); err != nil {
		return false, err
	}
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	key := deliveryKey{trigger, id}
	if until, ok := s.until[key]; ok && now.Before(until) {
		return false, nil
	}
	s.until[key] = now.Add(ttl)
	if len(s.until) >= 2*max(s.swept, 512) {
		for k, until := range s.until {
			if !now.Before(until) {
				delete(s.until, k)
			}
		}
		s.swept = len(s.until)
	}
	return true, nil
}

// ForgetDelivery removes a delivery's record.
func (s *deliveriesSpace) ForgetDelivery(ctx context.Context, trigger, id string) error {
	if err := s.closed.check(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.until, deliveryKey{trigger, id})
	return nil
}

var _ store.TriggerDeliveries = (*deliveriesSpace)(nil)
