package memstore

import (
	"encoding/json"
	"sync"
	"time"
)

// shardCount is the number of session shards (a power of two).
const shardCount = 64

// shard is one lock and the session spaces it guards.
type shard struct {
	mu     sync.Mutex
	spaces map[spaceKey]int32 // each space's index in the store's spaceTable
}

// spaceKey names a user's session. As map keys, the two IDs stay apart: no
// ID can name another user's or session's data.
type spaceKey struct{ user, session string }

// space is everything kept under one user's session: the session itself
// (when hasSession; it is dropped with the space when deleted), its
// transcript, its lease, its responses, waits and assets. Responses and
// their event logs may exist without the session, as in Redis.
//
// What every new session has is held by value in this one struct (the
// session record, the transcript's slice headers, the first response with
// its event log's), so the space is one allocation for all of them, and
// the garbage collector has fewer objects to mark.
type space struct {
	session    sessionData // meaningful when hasSession
	hasSession bool
	transcript transcript
	lease      lease
	responses  responseSet
	waits      map[string]*wait
	assets     map[string]*asset
	assetBytes int64 // the bytes of assets
}

// sessionData is a session's own record.
type sessionData struct {
	createdAt, updatedAt string
	state                map[string]json.RawMessage // nil until a key is set
}

// lease is the session's hold by one response until expires.
type lease struct {
	holder  string // response ID; "" when free
	expires time.Time
}

// heldBy reports the response that holds the lease at now ("" if none).
func (l lease) heldBy(now time.Time) string {
	if l.holder == "" || !now.Before(l.expires) {
		return ""
	}
	return l.holder
}

// response is one response's receipt and event log. Each expires on its
// own, receiptTTL after its last write.
type response struct {
	receipt        []byte // nil: none (never written, or expired)
	final          bool   // the receipt's status is final, decided when written
	version        uint64 // counts receipt writes (the sweeper's check that it did not change)
	receiptExpires time.Time
	events         eventLog
	eventsExpires  time.Time
}

// liveReceipt returns the receipt unless it expired.
func (r *response) liveReceipt(now time.Time) ([]byte, bool) {
	if r.receipt == nil || !now.Before(r.receiptExpires) {
		return nil, false
	}
	return r.receipt, true
}

// setReceipt stores a copy of b as the receipt, kept for ttl.
func (r *response) setReceipt(b []byte, now time.Time, ttl time.Duration) {
	r.receipt = copyBytes(b)
	r.final = isFinalReceipt(r.receipt)
	r.version++
	r.receiptExpires = now.Add(ttl)
}

// liveEvents returns the event log, empty once it expired.
func (r *response) liveEvents(now time.Time) *eventLog {
	if !now.Before(r.eventsExpires) {
		return &eventLog{}
	}
	return &r.events
}

// shardOf returns the shard of a user's session.
func (s *Store) shardOf(user, session string) *shard {
	return &s.shards[hashIDs(user, session)&(shardCount-1)]
}

// hashIDs is FNV-1a over two IDs with a separator, without allocating.
func hashIDs(a, b string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(a); i++ {
		h = (h ^ uint32(a[i])) * 16777619
	}
	h = (h ^ 0xff) * 16777619
	for i := 0; i < len(b); i++ {
		h = (h ^ uint32(b[i])) * 16777619
	}
	return h
}

// lockSpace locks the shard of a user's session and returns it with the
// session's space (nil when there is none). The caller unlocks the shard.
func (s *Store) lockSpace(user, session string) (*shard, *space) {
	sh := s.shardOf(user, session)
	sh.mu.Lock()
	i, ok := sh.spaces[spaceKey{user, session}]
	if !ok {
		return sh, nil
	}
	return sh, s.spaces.at(i)
}

// lockSpaceForWrite is lockSpace, making the space when there is none.
func (s *Store) lockSpaceForWrite(user, session string) (*shard, *space) {
	sh := s.shardOf(user, session)
	sh.mu.Lock()
	k := spaceKey{user, session}
	if i, ok := sh.spaces[k]; ok {
		return sh, s.spaces.at(i)
	}
	sp := &space{}
	sh.spaces[k] = s.spaces.add(sp)
	return sh, sp
}

// dropSpace forgets the space of k; the caller holds sh's lock.
func (s *Store) dropSpace(sh *shard, k spaceKey) {
	if i, ok := sh.spaces[k]; ok {
		delete(sh.spaces, k)
		s.spaces.remove(i)
	}
}

// response returns the space's response with that ID, made if missing.
func (sp *space) response(id string) *response {
	return sp.responses.getOrMake(id)
}

// empty reports whether nothing is left in the space at now (it may then
// be dropped).
func (sp *space) empty(now time.Time) bool {
	return !sp.hasSession && sp.transcript.len() == 0 && sp.lease.heldBy(now) == "" &&
		sp.responses.len() == 0 && len(sp.waits) == 0 && len(sp.assets) == 0
}

// copyBytes returns a copy of b (nil for nil), with no spare capacity.
func copyBytes(b []byte) []byte {
	if b == nil {
		return nil
	}
	out := make([]byte, len(b))
	copy(out, b)
	return out
}
