package memstore

import (
	"encoding/json"
	"sync"
	"time"

	"github.com/harnest/harnest/store"
)

// shardCount is the number of session shards (a power of two).
const shardCount = 64

// shard is one lock and the session spaces it guards.
type shard struct {
	mu sync.Mutex
	// spaces finds a space by its key's hash (spaceHash): the index of the
	// space in the store's spaceTable. A map of integers is smaller than
	// one of two strings, its keys are hashed once (the hash also picks the
	// shard), and it holds nothing the garbage collector follows.
	spaces map[uint64]int32
	// clash holds the spaces whose key's hash is another key's in spaces
	// (nil until one is): 64-bit hashes of chosen session IDs can be made
	// to collide, never to mix two sessions up.
	clash map[spaceKey]int32
	// due is when something in one of the spaces expires (expiryqueue.go).
	due expiryQueue
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
	key        spaceKey    // whose space it is
	session    sessionData // meaningful when hasSession
	hasSession bool
	transcript transcript
	compaction []byte // the runtime's compaction state (compactions.go); nil: none
	lease      lease
	responses  responseSet
	order      []string            // the session's response IDs in the order they began (session_responses.go)
	queue      []string            // the session's queued response IDs, its head first (queue.go)
	steers     map[string][][]byte // steers kept for running responses, by response ID (steers.go); nil until one is kept
	waits      map[string]*wait
	assets     map[string]*asset
	assetBytes int64 // the bytes of assets
	checkAt    int64 // when the shard's expiry queue looks at the space (Unix ns; 0: not queued)
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
	webhook        string   // Begin.Webhook, handed back with the run when it lapses
	request        []byte   // Begin.Request, handed to the replica that claims the run
	epoch          int      // the run's attempt (0: the first, 1); ClaimRun adds one
	attempts       int      // the attempts spent (0: the first, 1); SpendAttempt adds one
	handedOff      bool     // MarkHandOff set it; the next ClaimRun hands it back and clears it
	journal        *journal // the run's resume points (nil: none)
}

// fenced reports whether a write of attempt epoch is refused: the run's
// epoch is another (0 is taken as 1 on both sides). A response never
// written is at its first epoch.
func (r *response) fenced(epoch int) bool {
	current := 1
	if r != nil {
		current = max(r.epoch, 1)
	}
	return current != max(epoch, 1)
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

// shardOf returns the shard of a key's hash (spaceHash).
func (s *Store) shardOf(h uint64) *shard {
	return &s.shards[h&(shardCount-1)]
}

// spaceHash is a key's hash: it picks the shard and is the key in the
// shard's map. A variable, so that tests can make every key collide.
var spaceHash = func(k spaceKey) uint64 { return hashIDs(k.user, k.session) }

// hashIDs is FNV-1a (64 bits) over two IDs with a separator, without
// allocating.
func hashIDs(a, b string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(a); i++ {
		h = (h ^ uint64(a[i])) * 1099511628211
	}
	h = (h ^ 0xff) * 1099511628211
	for i := 0; i < len(b); i++ {
		h = (h ^ uint64(b[i])) * 1099511628211
	}
	return h
}

// lockSpace locks the shard of a user's session and returns it with the
// session's space (nil when there is none). The caller unlocks the shard.
func (s *Store) lockSpace(user, session string) (*shard, *space) {
	k := spaceKey{user, session}
	sh, _, i, found, _ := s.lockAndLocate(k)
	if !found {
		return sh, nil
	}
	return sh, s.spaces.at(i)
}

// lockResponse is lockSpace, with the space's response of that ID (nil
// when there is none).
func (s *Store) lockResponse(user, session, responseID string) (*shard, *space, *response) {
	sh, sp := s.lockSpace(user, session)
	if sp == nil {
		return sh, nil, nil
	}
	return sh, sp, sp.responses.get(responseID)
}

// lockSpaceForWrite is lockSpace, making the space when there is none.
func (s *Store) lockSpaceForWrite(user, session string) (*shard, *space) {
	k := spaceKey{user, session}
	sh, h, i, found, inClash := s.lockAndLocate(k)
	if found {
		return sh, s.spaces.at(i)
	}
	sp := &space{key: k}
	i = s.spaces.add(sp)
	if !inClash {
		sh.spaces[h] = i
		return sh, sp
	}
	if sh.clash == nil {
		sh.clash = map[spaceKey]int32{}
	}
	sh.clash[k] = i
	return sh, sp
}

// lockAndLocate locks the shard of k and locates k's space in it (see
// locate); h is k's hash. The caller unlocks the shard.
func (s *Store) lockAndLocate(k spaceKey) (sh *shard, h uint64, i int32, found, inClash bool) {
	h = spaceHash(k)
	sh = s.shardOf(h)
	sh.mu.Lock()
	i, found, inClash = s.locate(sh, k, h)
	return sh, h, i, found, inClash
}

// lockRunForWrite is lockSpaceForWrite for a write of attempt epoch of
// the response's run, with the time of the write: store.ErrFenced, with
// the shard unlocked and no space left made by the call, when the run's
// epoch is another. Otherwise the caller unlocks the shard.
func (s *Store) lockRunForWrite(user, session, responseID string, epoch int) (*shard, *space, time.Time, error) {
	sh, sp := s.lockSpaceForWrite(user, session)
	now := s.now()
	if sp.responses.get(responseID).fenced(epoch) {
		if sp.empty(now) { // made by this call: nothing would drop it
			s.dropSpace(sh, spaceKey{user, session})
		}
		sh.mu.Unlock()
		return nil, nil, now, store.ErrFenced
	}
	return sh, sp, now, nil
}

// locate finds k's space in sh (h is k's hash): its index, and whether it
// is (or, when not found, would go) in the clash map, because another
// key's space has h. The caller holds sh's lock.
func (s *Store) locate(sh *shard, k spaceKey, h uint64) (i int32, found, inClash bool) {
	if i, taken := sh.spaces[h]; taken {
		if s.spaces.at(i).key == k {
			return i, true, false
		}
		inClash = true
	}
	if i, ok := sh.clash[k]; ok { // a nil map finds nothing
		return i, true, true
	}
	return 0, false, inClash
}

// dropSpace forgets the space of k; the caller holds sh's lock.
func (s *Store) dropSpace(sh *shard, k spaceKey) {
	h := spaceHash(k)
	i, found, inClash := s.locate(sh, k, h)
	switch {
	case !found:
		return
	case inClash:
		delete(sh.clash, k)
	default:
		delete(sh.spaces, h)
	}
	s.spaces.remove(i)
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
