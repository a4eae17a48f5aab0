package memstore

import "time"

// Reads never see what expired (they check the clock); the expiry pass
// drops it so that its memory is returned: receipts and event logs past
// their TTL, waits past their tombstone, and spaces and users left with
// nothing. The pass runs every second. It looks at the spaces its shards'
// queues say something expires in (expiryqueue.go), and at a few users'
// wait indexes.

// userShardsPerPass is how many user shards one pass sweeps: a pass
// every second visits each one every shardCount / userShardsPerPass
// seconds. (A user's waits are dropped with its sessions' waits; this
// catches what those drops miss.)
const userShardsPerPass = 4

// expireEvery runs a pass every interval until the store is closed.
func (s *Store) expireEvery(interval time.Duration) {
	defer close(s.done)
	t := time.NewTicker(interval)
	defer t.Stop()
	nextUsers := 0
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			nextUsers = s.pass(s.now(), nextUsers)
		}
	}
}

// pass is one run of the expiry pass at now: the due spaces of every
// shard, userShardsPerPass user shards from nextUsers on, and the parts.
// It returns the user shard the next pass starts at.
func (s *Store) pass(now time.Time, nextUsers int) int {
	for i := range s.shards {
		s.expireDue(&s.shards[i], now)
	}
	for range userShardsPerPass {
		s.users.expire(nextUsers, now)
		nextUsers = (nextUsers + 1) % shardCount
	}
	s.sweepParts(now)
	return nextUsers
}

// expire drops everything that expired at now, looking at every space of
// every shard, every user and every part (tests compare the pass with it).
func (s *Store) expire(now time.Time) {
	for i := range shardCount {
		s.expireShard(i, now)
	}
	s.sweepParts(now)
}

// expireShard drops what expired at now in session shard i and user
// shard i.
func (s *Store) expireShard(i int, now time.Time) {
	sh := &s.shards[i]
	sh.mu.Lock()
	expireSpaces(s, sh.spaces, now)
	expireSpaces(s, sh.clash, now)
	sh.mu.Unlock()
	s.users.expire(i, now)
}

// expireSpaces expires the spaces of one of a shard's maps, and drops
// those left with nothing. The caller holds the shard's lock.
func expireSpaces[K comparable](s *Store, spaces map[K]int32, now time.Time) {
	for k, at := range spaces {
		if s.expireSpace(s.spaces.at(at), now) {
			delete(spaces, k)
			s.spaces.remove(at)
		}
	}
}

// sweepParts lets each part drop what expired at now.
func (s *Store) sweepParts(now time.Time) {
	s.tasksSpace.sweep(now)
	s.threadsSpace.sweep(now)
	s.requestsSpace.sweep(now)
	s.relaySpace.sweep(now)
	s.relayToolsSpace.sweep(now)
}

// expireSpace drops what expired in one space, and reports whether the
// space is left with nothing (the caller then drops it). The caller holds
// its shard's lock.
func (s *Store) expireSpace(sp *space, now time.Time) (empty bool) {
	k := sp.key
	if sp.lease.holder != "" && sp.lease.heldBy(now) == "" {
		sp.lease = lease{}
	}
	sp.responses.dropIf(func(r *response) bool {
		if r.receipt != nil && !now.Before(r.receiptExpires) {
			r.receipt, r.final = nil, false
		}
		if r.events.held() && !now.Before(r.eventsExpires) {
			r.events = eventLog{}
		}
		if r.journal != nil && !now.Before(r.journal.expires) {
			r.journal = nil
		}
		return r.receipt == nil && !r.events.held()
	})
	var gone []string
	for id, w := range sp.waits {
		if !now.Before(w.expires) {
			delete(sp.waits, id)
			gone = append(gone, id)
		}
	}
	s.users.removeWaits(k.user, k.session, gone)
	return sp.empty(now)
}
