package memstore

import (
	"context"
	"sort"
	"sync"
	"time"

	"github.com/harnest/harnest/store"
)

// Every response that holds a session is registered with the time its
// lease lapses unless renewed. A replica that dies stops renewing; any
// replica's sweeper then finds the run, sees that its lease is gone, and
// records its receipt as failed, so nothing stays in_progress forever.

// runKey names a registered run and the replica that runs it.
type runKey struct{ user, session, response, replica string }

// runRegistry is the set of registered runs with the time each lapses. Its
// lock is taken after a shard's, never before.
type runRegistry struct {
	mu   sync.Mutex
	runs map[runKey]runEntry
}

// runEntry is when a registered run lapses, and the epoch it was
// registered with.
type runEntry struct {
	lapses time.Time
	epoch  int
}

func (r *runRegistry) register(k runKey, lapses time.Time, epoch int) {
	r.mu.Lock()
	r.runs[k] = runEntry{lapses, max(epoch, 1)}
	r.mu.Unlock()
}

// of returns up to limit runs of replica (limit <= 0: all), in no order.
func (r *runRegistry) of(replica string, limit int) []store.Lapsed {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []store.Lapsed
	for k, e := range r.runs {
		if k.replica != replica {
			continue
		}
		if limit > 0 && len(out) == limit {
			break
		}
		out = append(out, store.Lapsed{User: k.user, Session: k.session, ResponseID: k.response, Replica: k.replica, Epoch: e.epoch})
	}
	return out
}

// epochOf is the epoch run k was registered with (0: not registered).
func (r *runRegistry) epochOf(k runKey) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.runs[k].epoch
}

func (r *runRegistry) unregister(k runKey) {
	r.mu.Lock()
	delete(r.runs, k)
	r.mu.Unlock()
}

// lapsed returns up to limit runs that lapsed at or before now, the
// earliest first (limit <= 0: all).
func (r *runRegistry) lapsed(now time.Time, limit int) []runKey {
	type entry struct {
		k      runKey
		lapses time.Time
	}
	r.mu.Lock()
	var found []entry
	for k, e := range r.runs {
		if !e.lapses.After(now) {
			found = append(found, entry{k, e.lapses})
		}
	}
	r.mu.Unlock()
	sort.Slice(found, func(i, j int) bool { return found[i].lapses.Before(found[j].lapses) })
	if limit > 0 && len(found) > limit {
		found = found[:limit]
	}
	out := make([]runKey, len(found))
	for i, e := range found {
		out[i] = e.k
	}
	return out
}

// SweepLapsed finds up to limit runs whose lease lapsed before now. A run
// for which due returns false is left alone (looked at again later). For
// the others, failed(run, receipt) gives the receipt to record in place of
// a receipt that is not final (nil keeps it; a final receipt is kept
// without asking); the run is then forgotten. due and failed run without
// any of the store's locks held. Several replicas may sweep at once: a
// receipt is replaced only if it did not change since it was read. It
// returns the runs it failed.
func (s *Store) SweepLapsed(ctx context.Context, now time.Time, limit int, due func(store.Lapsed) bool, failed func(store.Lapsed, []byte) []byte) ([]store.Lapsed, error) {
	if err := s.closed.check(); err != nil {
		return nil, err
	}
	var out []store.Lapsed
	for _, k := range s.runs.lapsed(now, limit) {
		run := store.Lapsed{User: k.user, Session: k.session, ResponseID: k.response, Replica: k.replica, Epoch: s.runs.epochOf(k)}
		if run.Epoch == 0 {
			continue // forgotten meanwhile
		}
		if !due(run) {
			continue
		}
		if s.sweepOne(k, &run, failed) {
			out = append(out, run)
		}
	}
	return out, nil
}

// sweepOne fails one lapsed run, unless its lease is held again or its
// receipt changed while failed ran; it reports whether it replaced the
// receipt. It sets the run's Webhook.
func (s *Store) sweepOne(k runKey, run *store.Lapsed, failed func(store.Lapsed, []byte) []byte) bool {
	sh, sp := s.lockSpace(k.user, k.session)
	now := s.now()
	var r *response
	var receipt []byte
	var version uint64
	if sp != nil {
		if sp.lease.heldBy(now) == k.response {
			sh.mu.Unlock()
			return false // still held: the holder renews it, and its entry with it
		}
		if r = sp.responses.get(k.response); r != nil {
			receipt, _ = r.liveReceipt(now)
			version = r.version
			run.Webhook = r.webhook
		}
	}
	if receipt == nil || r.final {
		s.runs.unregister(k)
		sh.mu.Unlock()
		return false
	}
	sh.mu.Unlock()

	replacement := failed(*run, receipt)

	sh, sp = s.lockSpace(k.user, k.session)
	now = s.now()
	if sp == nil || sp.responses.get(k.response) != r || r.version != version || sp.lease.heldBy(now) == k.response {
		sh.mu.Unlock()
		return false // changed meanwhile: the next sweep looks again
	}
	if replacement != nil {
		r.setReceipt(replacement, now, s.receiptTTL)
		sh.expireAt(sp, now.Add(s.receiptTTL))
	}
	s.runs.unregister(k)
	sh.mu.Unlock()
	if replacement != nil {
		s.hubs.notify(responseKey{k.user, k.session, k.response})
	}
	return replacement != nil
}

// RunsOf returns up to limit registered runs of replica.
func (s *Store) RunsOf(ctx context.Context, replica string, limit int) ([]store.Lapsed, error) {
	if err := s.closed.check(); err != nil {
		return nil, err
	}
	return s.runs.of(replica, limit), nil
}

// ClaimRun hands a run to c.Claimer under the session's lock: see
// store.Runs.
func (s *Store) ClaimRun(ctx context.Context, c store.Claim) (store.Claimed, error) {
	if err := s.closed.check(); err != nil {
		return store.Claimed{}, err
	}
	old := runKey{c.User, c.Session, c.ResponseID, c.Replica}
	sh, sp := s.lockSpace(c.User, c.Session)
	defer sh.mu.Unlock()
	var r *response
	if sp != nil {
		r = sp.responses.get(c.ResponseID)
	}
	if r == nil {
		s.runs.unregister(old)
		return store.Claimed{}, store.ErrReceiptFinal
	}
	now := s.now()
	if r.fenced(c.Epoch) {
		s.runs.unregister(old)
		return store.Claimed{}, store.ErrFenced
	}
	receipt, ok := r.liveReceipt(now)
	if !ok || r.final || !sp.hasSession {
		s.runs.unregister(old)
		return store.Claimed{}, store.ErrReceiptFinal
	}
	if holder := sp.lease.heldBy(now); holder != "" && holder != c.ResponseID {
		return store.Claimed{}, store.ErrSessionBusy
	}
	r.epoch = max(c.Epoch, 1) + 1
	handedOff := r.handedOff
	r.handedOff = false
	sp.lease = lease{holder: c.ResponseID, expires: now.Add(c.Lease)}
	s.runs.unregister(old)
	s.runs.register(runKey{c.User, c.Session, c.ResponseID, c.Claimer}, now.Add(c.Lease), r.epoch)
	last := -1
	if n, ok := r.liveEvents(now).last(); ok {
		last = n
	}
	return store.Claimed{Epoch: r.epoch, Request: copyBytes(r.request), Webhook: r.webhook,
		Receipt: copyBytes(receipt), LastSequence: last, Attempt: max(r.attempts, 1), HandedOff: handedOff}, nil
}
