package memstore

import (
	"context"
	"time"

	"github.com/harnest/harnest/store"
)

// deliveriesSpace remembers inbound triggers' deliveries (the
// TriggerDeliveries slice) until they expire, in a deadlineSet: memory
// follows the deliveries of one TTL.
type deliveriesSpace struct {
	now        func() time.Time
	closed     *closedFlag
	deliveries *deadlineSet[deliveryKey]
}

type deliveryKey struct{ trigger, id string }

func newDeliveriesSpace(now func() time.Time, closed *closedFlag) *deliveriesSpace {
	return &deliveriesSpace{now: now, closed: closed, deliveries: newDeadlineSet[deliveryKey](512)}
}

// RememberDelivery records a delivery unless it is recorded and unexpired.
func (s *deliveriesSpace) RememberDelivery(ctx context.Context, trigger, id string, ttl time.Duration) (bool, error) {
	if err := s.closed.check(); err != nil {
		return false, err
	}
	now := s.now()
	return s.deliveries.putNew(deliveryKey{trigger, id}, now.Add(ttl), now), nil
}

// ForgetDelivery removes a delivery's record.
func (s *deliveriesSpace) ForgetDelivery(ctx context.Context, trigger, id string) error {
	if err := s.closed.check(); err != nil {
		return err
	}
	s.deliveries.remove(deliveryKey{trigger, id}, s.now())
	return nil
}

var _ store.TriggerDeliveries = (*deliveriesSpace)(nil)
