package store

import (
	"context"
	"time"
)

// TriggerDeliveries remembers the deliveries of inbound triggers (signed
// webhooks) that were accepted, so that a replayed one is refused: each is
// kept for a time (SET NX with a TTL), then forgotten by itself. Owner:
// trigger.
type TriggerDeliveries interface {
	// RememberDelivery records delivery id of the named trigger for ttl,
	// atomically: fresh is true when it was not recorded yet (or its
	// record expired), false when it is a replay; nothing changes then.
	RememberDelivery(ctx context.Context, trigger, id string, ttl time.Duration) (fresh bool, err error)
	// ForgetDelivery removes the record (the delivery was not acted on,
	// so that the sender's retry is not refused). Forgetting what is not
	// recorded is no error.
	ForgetDelivery(ctx context.Context, trigger, id string) error
}
