package store

import (
	"context"
	"time"
)

// Outbox is the durable queue of outgoing deliveries (A2A push
// notifications, completion webhooks) that any replica may send.
//
// Deliveries of one queue (a user and a Key, such as a task and one of its
// push configs) go out in order: only the oldest of a queue is ever
// claimed, and the next one becomes due once it is completed. A claim
// lasts a lease; a replica that dies mid-delivery loses it when the lease
// ends and another replica claims the delivery again (at-least-once). A
// delivery lasts as long as a receipt after it was enqueued. It is the
// core's: the runtime's Dispatcher claims and sends the deliveries, which
// the core (webhooks) and the A2A door (push notifications) enqueue
// through it.
type Outbox interface {
	// EnqueueDelivery appends d to the end of its queue, due at once (or
	// at d.NextAttempt when it is later than now), and returns its ID
	// (d.ID, or one the store makes). ErrOutboxFull refuses it when the
	// user already has maxPerUser deliveries waiting (maxPerUser < 1: no
	// bound).
	EnqueueDelivery(ctx context.Context, d Delivery, maxPerUser int, now time.Time) (id string, err error)
	// ClaimDeliveries claims up to limit deliveries that are due at now:
	// the oldest of each queue whose next attempt is not after now and
	// that no live lease holds. Each claim counts an attempt and holds the
	// delivery until now+lease; the returned Delivery carries its Claim.
	// The claims are shared out among users (share): however many
	// deliveries one user has due, another user's due delivery is claimed
	// as long as limit leaves room, and one user gets no more than
	// share.PerUser less what share.Held says they hold already.
	ClaimDeliveries(ctx context.Context, now time.Time, lease time.Duration, limit int, share ClaimShare) ([]Delivery, error)
	// CompleteDelivery removes a claimed delivery (sent, or given up) and
	// makes the next one of its queue due. false: the claim was lost (its
	// lease ended and someone claimed it again, or it expired); nothing
	// changed.
	CompleteDelivery(ctx context.Context, d Delivery) (bool, error)
	// RetryDelivery gives a claimed delivery back to be tried again at at,
	// noting why the attempt failed. false: the claim was lost.
	RetryDelivery(ctx context.Context, d Delivery, at time.Time, lastError string) (bool, error)
	// ReleaseDelivery gives a claimed delivery back unsent, due again at
	// at: its claim's attempt is not counted (the claimer had no room to
	// send it). false: the claim was lost.
	ReleaseDelivery(ctx context.Context, d Delivery, at time.Time) (bool, error)
}

// ClaimShare bounds what one user's deliveries take of a claim.
type ClaimShare struct {
	// PerUser is the most deliveries one user may hold claimed at once
	// (< 1: no bound).
	PerUser int
	// Held is how many deliveries each user holds claimed already (the
	// claimer's deliveries in flight); a claim takes at most
	// PerUser-Held[user] more of theirs.
	Held map[string]int
}

// Room is how many more of user's deliveries a claim of at most limit
// may take.
func (s ClaimShare) Room(user string, limit int) int {
	if s.PerUser < 1 {
		return limit
	}
	return min(limit, s.PerUser-s.Held[user])
}

// Delivery is one outgoing POST waiting in the outbox.
type Delivery struct {
	// ID is unique within the store; EnqueueDelivery makes one when empty.
	ID string
	// User owns the delivery (bounds count per user).
	User string
	// Key names the queue within the user's: deliveries with the same key
	// go out in the order they were enqueued.
	Key string
	// Kind says who signs it when it is sent (a signer the dispatcher
	// knows, such as "a2a.push" or "webhook").
	Kind string
	// URL is where it is posted.
	URL string
	// Headers are sent as they are (a token, Authorization).
	Headers map[string]string
	// Body is the request body (JSON).
	Body []byte
	// Attempts counts the claims so far, this one included.
	Attempts int
	// NextAttempt is when it is due (zero: at once).
	NextAttempt time.Time
	// LastError says why the last attempt failed ("" before any).
	LastError string
	// Claim is set by ClaimDeliveries: the token of this claim, which
	// CompleteDelivery and RetryDelivery check.
	Claim string
}
