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
	runs map[runKey]time.Time
}

func (r *runRegistry) register(k runKey, lapses time.Time) {
	r.mu.Lock()
	r.runs[k] = lapses
	r.mu.Unlock()
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
	for k, t := range r.runs {
		if !t.After(now) {
			found = append(found, entry{k, t})
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
		run := store.Lapsed{User: k.user, Session: k.session, ResponseID: k.response, Replica: k.replica}
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
