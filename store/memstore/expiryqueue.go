package memstore

import "time"

// Each shard keeps a queue of the times at which something in one of its
// spaces expires: a receipt, an event log or a wait. The expiry pass looks
// only at the spaces whose time has come, so its work follows what
// expires, not the size of the store. (It used to visit every space of
// the store every 16 seconds: at 400k sessions, 9-11 ms of CPU every
// second, each shard's lock held 2-3 ms at a time, and more as the store
// grew; the queue's pass takes tens of microseconds.)
//
// A space is in its shard's queue at most once for a given time:
// space.checkAt is the time the queue will look at it. A write that expires
// sooner queues the space again at that sooner time; the entry for the
// later time is then stale, and skipped when it comes up (its time is not
// the space's checkAt). A look at a space drops what expired and queues the
// space again for the next thing that expires in it, if anything does.
//
// Times are rounded up to the second: the pass runs every second, and
// the writes of one second to one space then queue it once.
//
// An entry names its space by the key's hash (the shard map's key), not by
// its index in the space table: a dropped space's index may be given to a
// space of another shard, which this shard's lock does not guard. The
// spaces in the clash map share their hash with another space, so a hash
// does not name them: they are not queued, and the pass looks at all of
// them instead (there are none but where chosen IDs collide, and then the
// pass's work grows with them, not with the square of them).
//
// Leases are not queued: a lapsed lease is free by the clock (lease.heldBy)
// and does not keep a space; its holder's name is cleared when the space is
// next looked at, or taken over by the next begin.

// dueSpace is a queue entry: look at the space whose key hashes to h at
// time at (Unix nanoseconds).
type dueSpace struct {
	at int64
	h  uint64
}

// expiryQueue is a binary min-heap of entries by time. It holds no
// pointers: the garbage collector has nothing in it to follow.
type expiryQueue []dueSpace

func (q *expiryQueue) push(d dueSpace) {
	*q = append(*q, d)
	h := *q
	for i := len(h) - 1; i > 0; {
		parent := (i - 1) / 2
		if h[parent].at <= h[i].at {
			break
		}
		h[parent], h[i] = h[i], h[parent]
		i = parent
	}
}

// popDue removes and returns the earliest entry when it is due at t.
func (q *expiryQueue) popDue(t int64) (dueSpace, bool) {
	h := *q
	if len(h) == 0 || h[0].at > t {
		return dueSpace{}, false
	}
	first := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	for i := 0; ; {
		least, l, r := i, 2*i+1, 2*i+2
		if l < len(h) && h[l].at < h[least].at {
			least = l
		}
		if r < len(h) && h[r].at < h[least].at {
			least = r
		}
		if least == i {
			break
		}
		h[i], h[least] = h[least], h[i]
		i = least
	}
	if len(h) == 0 {
		h = nil // let the array of a drained queue go
	}
	*q = h
	return first, true
}

// expireAt queues sp to be looked at when t has passed, unless it is
// queued for that time or sooner already. The caller holds sh's lock (sh
// is sp's shard).
func (sh *shard) expireAt(sp *space, t time.Time) {
	at := ceilSecond(t)
	if sp.checkAt != 0 && sp.checkAt <= at {
		return
	}
	if _, inClash := sh.clash[sp.key]; inClash { // a nil map finds nothing
		return // looked at every pass (above)
	}
	sp.checkAt = at
	sh.due.push(dueSpace{at: at, h: spaceHash(sp.key)})
}

// ceilSecond is t in Unix nanoseconds, rounded up to a whole second.
func ceilSecond(t time.Time) int64 {
	const second = int64(time.Second)
	ns := t.UnixNano()
	return (ns + second - 1) / second * second
}

// maxDuePerPass bounds the spaces one pass looks at in one shard, so that
// it holds the shard's lock briefly; what is left waits for the next pass.
const maxDuePerPass = 4096

// expireDue looks at the spaces of sh whose time has come at now, and at
// the spaces of its clash map: it drops what expired in them, drops the
// spaces left with nothing, and queues the others for their next expiry.
func (s *Store) expireDue(sh *shard, now time.Time) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	expireSpaces(s, sh.clash, now) // nil but where hashes collide
	for range maxDuePerPass {
		d, ok := sh.due.popDue(now.UnixNano())
		if !ok {
			return
		}
		if i, ok := sh.spaces[d.h]; ok {
			s.expireQueued(sh, s.spaces.at(i), d, now)
		}
	}
}

// expireQueued looks at sp for its queue entry d, unless the entry is
// stale. The caller holds sh's lock.
func (s *Store) expireQueued(sh *shard, sp *space, d dueSpace, now time.Time) {
	if sp.checkAt != d.at {
		return // queued again for another time since
	}
	sp.checkAt = 0
	if s.expireSpace(sp, now) {
		s.dropSpace(sh, sp.key)
		return
	}
	if next, ok := sp.nextExpiry(); ok {
		sh.expireAt(sp, next)
	}
}

// nextExpiry is the soonest time at which a receipt, event log or wait of
// the space expires; false when nothing in it does.
func (sp *space) nextExpiry() (time.Time, bool) {
	var next time.Time
	soonest := func(t time.Time) {
		if next.IsZero() || t.Before(next) {
			next = t
		}
	}
	sp.responses.each(func(r *response) {
		if r.receipt != nil {
			soonest(r.receiptExpires)
		}
		if r.events.held() {
			soonest(r.eventsExpires)
		}
	})
	for _, w := range sp.waits {
		soonest(w.expires)
	}
	return next, !next.IsZero()
}
