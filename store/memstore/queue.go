package memstore

import (
	"bytes"
	"context"
	"slices"
	"time"

	"github.com/harnest/harnest/store"
)

// The sessions' queues of responses (store.Queues): a space's queue is the
// IDs of its queued responses, its head first; each has its receipt, request
// and webhook like a begun response, and is registered as a run of
// store.QueuedReplica until it starts or is cancelled. Every operation is
// one critical section of the session's shard.

// queuedStatus is what StartQueued rewrites in a receipt.
var queuedStatus, inProgressStatus = []byte(`"status":"queued"`), []byte(`"status":"in_progress"`)

// queuedLapse is how far ahead a queued run's registration lapses: it is
// not a lease (nobody renews it), only a way for sweepers to find queues.
func (s *Store) queuedLapse(now time.Time) time.Time { return now.Add(s.receiptTTL) }

// QueueResponse queues a response on a busy session: see store.Queues.
func (s *Store) QueueResponse(ctx context.Context, q store.Enqueue) error {
	if err := s.closed.check(); err != nil {
		return err
	}
	sh, sp := s.lockSpace(q.User, q.Session)
	if sp == nil || !sp.hasSession {
		sh.mu.Unlock()
		return store.ErrSessionNotFound
	}
	defer sh.mu.Unlock()
	now := s.now()
	switch {
	case !q.EvenIdle && sp.lease.heldBy(now) == "" && len(sp.queue) == 0:
		return store.ErrSessionIdle
	case q.Bound > 0 && len(sp.queue) >= q.Bound:
		return store.ErrQueueFull
	}
	if q.Front {
		sp.queue = slices.Insert(sp.queue, 0, q.ResponseID)
	} else {
		sp.queue = append(sp.queue, q.ResponseID)
	}
	sp.addToOrder(q.ResponseID)
	r := sp.response(q.ResponseID)
	r.setReceipt(q.Receipt, now, s.receiptTTL)
	r.webhook = q.Webhook
	r.request = copyBytes(q.Request)
	if len(q.Events) > 0 {
		s.addEvents(r, q.Events, now)
	}
	sh.expireAt(sp, now.Add(s.receiptTTL))
	s.runs.register(runKey{q.User, q.Session, q.ResponseID, store.QueuedReplica}, s.queuedLapse(now), 1)
	return nil
}

// StartQueued hands the head of the session's queue to replica: see
// store.Queues.
func (s *Store) StartQueued(ctx context.Context, user, session, replica string, leaseFor time.Duration) (store.QueuedRun, bool, error) {
	if err := s.closed.check(); err != nil {
		return store.QueuedRun{}, false, err
	}
	sh, sp := s.lockSpace(user, session)
	if sp == nil {
		sh.mu.Unlock()
		return store.QueuedRun{}, false, nil
	}
	defer sh.mu.Unlock()
	now := s.now()
	if sp.lease.heldBy(now) != "" {
		return store.QueuedRun{}, false, nil
	}
	for len(sp.queue) > 0 {
		id := sp.queue[0]
		sp.queue = sp.queue[1:]
		s.runs.unregister(runKey{user, session, id, store.QueuedReplica})
		r := sp.responses.get(id)
		if r == nil || !sp.hasSession {
			continue
		}
		if _, ok := r.liveReceipt(now); !ok || r.final {
			continue
		}
		r.setReceipt(bytes.Replace(r.receipt, queuedStatus, inProgressStatus, 1), now, s.receiptTTL)
		sp.lease = lease{holder: id, expires: now.Add(leaseFor)}
		s.runs.register(runKey{user, session, id, replica}, now.Add(leaseFor), 1)
		last := -1
		if n, ok := r.liveEvents(now).last(); ok {
			last = n
		}
		if len(sp.queue) == 0 {
			sp.queue = nil
		}
		return store.QueuedRun{ResponseID: id, Request: copyBytes(r.request), Webhook: r.webhook, LastSequence: last}, true, nil
	}
	sp.queue = nil
	return store.QueuedRun{}, false, nil
}

// CancelQueued takes a queued response out of its queue and writes its
// final receipt and events: see store.Queues.
func (s *Store) CancelQueued(ctx context.Context, user, session, responseID string, receipt []byte, events []store.Event) (string, bool, error) {
	if err := s.closed.check(); err != nil {
		return "", false, err
	}
	sh, sp := s.lockSpace(user, session)
	if sp == nil {
		sh.mu.Unlock()
		return "", false, nil
	}
	i := slices.Index(sp.queue, responseID)
	if i < 0 {
		sh.mu.Unlock()
		return "", false, nil
	}
	now := s.now()
	sp.queue = slices.Delete(sp.queue, i, i+1)
	r := sp.response(responseID)
	r.setReceipt(receipt, now, s.receiptTTL)
	if len(events) > 0 {
		s.addEvents(r, events, now)
	}
	sh.expireAt(sp, now.Add(s.receiptTTL))
	s.runs.unregister(runKey{user, session, responseID, store.QueuedReplica})
	webhook := r.webhook
	sh.mu.Unlock()
	s.hubs.notify(responseKey{user, session, responseID})
	return webhook, true, nil
}

// QueuedResponses returns up to limit IDs of the session's queue and its
// length.
func (s *Store) QueuedResponses(ctx context.Context, user, session string, limit int) ([]string, int, error) {
	if err := s.closed.check(); err != nil {
		return nil, 0, err
	}
	sh, sp := s.lockSpace(user, session)
	if sp == nil {
		sh.mu.Unlock()
		return nil, 0, nil
	}
	defer sh.mu.Unlock()
	n := len(sp.queue)
	return slices.Clone(sp.queue[:min(max(limit, 0), n)]), n, nil
}
