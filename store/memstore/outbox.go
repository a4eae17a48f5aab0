package memstore

import (
	"context"
	"crypto/rand"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/harnest/harnest/store"
)

// outboxSpace is the in-process outbox: one FIFO queue per user and key.
// Only the head of a queue is ever claimed. A delivery expires ttl after it
// was enqueued; since every delivery of a queue has the same TTL, the
// expired ones are always at the head, and every operation drops them
// first.
type outboxSpace struct {
	now    func() time.Time
	ttl    time.Duration
	closed *closedFlag

	mu     sync.Mutex
	queues map[outboxQueueKey]*outboxQueue
	byUser map[string]int // deliveries held per user
}

type outboxQueueKey struct{ user, key string }

// outboxQueue is one queue's deliveries, oldest first.
type outboxQueue struct {
	items []*outboxItem
}

// outboxItem is a delivery with its expiry and the lease of its claim.
type outboxItem struct {
	d          store.Delivery
	expires    time.Time
	leaseUntil time.Time // zero: not claimed
}

func newOutboxSpace(now func() time.Time, ttl time.Duration, closed *closedFlag) *outboxSpace {
	return &outboxSpace{now: now, ttl: ttl, closed: closed,
		queues: map[outboxQueueKey]*outboxQueue{}, byUser: map[string]int{}}
}

// dropExpired removes the expired heads of a queue (and the queue once it
// is empty). The caller holds p.mu.
func (p *outboxSpace) dropExpired(k outboxQueueKey, q *outboxQueue, now time.Time) {
	for len(q.items) > 0 && !q.items[0].expires.After(now) {
		q.items = q.items[1:]
		p.forgetOne(k.user)
	}
	if len(q.items) == 0 {
		delete(p.queues, k)
	}
}

func (p *outboxSpace) forgetOne(user string) {
	if p.byUser[user]--; p.byUser[user] <= 0 {
		delete(p.byUser, user)
	}
}

// EnqueueDelivery appends a delivery to its queue.
func (p *outboxSpace) EnqueueDelivery(ctx context.Context, d store.Delivery, maxPerUser int, now time.Time) (string, error) {
	if err := p.closed.check(); err != nil {
		return "", err
	}
	clock := p.now()
	p.mu.Lock()
	defer p.mu.Unlock()
	if maxPerUser > 0 && p.byUser[d.User] >= maxPerUser {
		for k, q := range p.queues { // count again without what expired
			if k.user == d.User {
				p.dropExpired(k, q, clock)
			}
		}
		if p.byUser[d.User] >= maxPerUser {
			return "", store.ErrOutboxFull
		}
	}
	if d.ID == "" {
		d.ID = "dlv_" + rand.Text()
	}
	if d.NextAttempt.Before(now) {
		d.NextAttempt = now
	}
	d.Body = append([]byte(nil), d.Body...)
	d.Headers = maps.Clone(d.Headers)
	d.Attempts, d.Claim, d.LastError = 0, "", ""
	k := outboxQueueKey{d.User, d.Key}
	q := p.queues[k]
	if q == nil {
		q = &outboxQueue{}
		p.queues[k] = q
	}
	q.items = append(q.items, &outboxItem{d: d, expires: clock.Add(p.ttl)})
	p.byUser[d.User]++
	return d.ID, nil
}

// ClaimDeliveries claims the due heads of the queues, soonest due first,
// each user's within their share.
func (p *outboxSpace) ClaimDeliveries(ctx context.Context, now time.Time, lease time.Duration, limit int, share store.ClaimShare) ([]store.Delivery, error) {
	if err := p.closed.check(); err != nil {
		return nil, err
	}
	clock := p.now()
	p.mu.Lock()
	defer p.mu.Unlock()
	var due []*outboxItem
	for k, q := range p.queues {
		p.dropExpired(k, q, clock)
		if len(q.items) == 0 {
			continue
		}
		head := q.items[0]
		if head.d.NextAttempt.After(now) || head.leaseUntil.After(now) {
			continue
		}
		due = append(due, head)
	}
	slices.SortFunc(due, func(a, b *outboxItem) int { return a.dueAt().Compare(b.dueAt()) })
	out := make([]store.Delivery, 0, min(len(due), max(limit, 0)))
	taken := map[string]int{}
	for _, it := range due {
		if len(out) >= limit {
			break
		}
		if taken[it.d.User] >= share.Room(it.d.User, limit) {
			continue
		}
		taken[it.d.User]++
		it.d.Attempts++
		it.d.Claim = "clm_" + rand.Text()
		it.leaseUntil = now.Add(lease)
		c := it.d
		c.Body = append([]byte(nil), it.d.Body...)
		c.Headers = maps.Clone(it.d.Headers)
		out = append(out, c)
	}
	return out, nil
}

// dueAt is when the item became claimable: its next attempt, or the end of
// a lapsed lease.
func (it *outboxItem) dueAt() time.Time {
	if it.leaseUntil.After(it.d.NextAttempt) {
		return it.leaseUntil
	}
	return it.d.NextAttempt
}

// claimed finds the head of d's queue when d still holds its claim. The
// caller holds p.mu.
func (p *outboxSpace) claimed(d store.Delivery) (outboxQueueKey, *outboxQueue, bool) {
	k := outboxQueueKey{d.User, d.Key}
	q := p.queues[k]
	if q == nil {
		return k, nil, false
	}
	p.dropExpired(k, q, p.now())
	if len(q.items) == 0 {
		return k, nil, false
	}
	head := q.items[0]
	return k, q, head.d.ID == d.ID && d.Claim != "" && head.d.Claim == d.Claim
}

// CompleteDelivery removes a claimed delivery.
func (p *outboxSpace) CompleteDelivery(ctx context.Context, d store.Delivery) (bool, error) {
	return p.onClaimed(d, func(k outboxQueueKey, q *outboxQueue) {
		q.items = q.items[1:]
		p.forgetOne(k.user)
		if len(q.items) == 0 {
			delete(p.queues, k)
		}
	})
}

// RetryDelivery gives a claimed delivery back, due at at.
func (p *outboxSpace) RetryDelivery(ctx context.Context, d store.Delivery, at time.Time, lastError string) (bool, error) {
	return p.giveBack(d, func(head *store.Delivery) {
		head.NextAttempt, head.LastError = at, lastError
	})
}

// ReleaseDelivery gives a claimed delivery back unsent, due at at, its
// attempt not counted.
func (p *outboxSpace) ReleaseDelivery(ctx context.Context, d store.Delivery, at time.Time) (bool, error) {
	return p.giveBack(d, func(head *store.Delivery) {
		head.NextAttempt = at
		head.Attempts = max(0, head.Attempts-1)
	})
}

// giveBack ends the claim on d, still the head of its queue, after change
// has set when it is due again; false when d is no longer claimed as it was.
func (p *outboxSpace) giveBack(d store.Delivery, change func(head *store.Delivery)) (bool, error) {
	return p.onClaimed(d, func(_ outboxQueueKey, q *outboxQueue) {
		head := q.items[0]
		change(&head.d)
		head.d.Claim = ""
		head.leaseUntil = time.Time{}
	})
}

// onClaimed does act to d's queue, under the lock, while d is its head and
// still holds its claim; false when d is no longer claimed as it was.
func (p *outboxSpace) onClaimed(d store.Delivery, act func(k outboxQueueKey, q *outboxQueue)) (bool, error) {
	if err := p.closed.check(); err != nil {
		return false, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	k, q, ok := p.claimed(d)
	if !ok {
		return false, nil
	}
	act(k, q)
	return true, nil
}

// close drops every delivery.
func (p *outboxSpace) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.queues = map[outboxQueueKey]*outboxQueue{}
	p.byUser = map[string]int{}
}
