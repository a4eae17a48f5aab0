package memstore

import (
	"sync"
	"time"

	"github.com/google/btree"
)

// userIndex holds what belongs to a user across sessions: the ordered
// index of their session IDs, the bytes of all their assets, and the index
// of their waits by ID. Users are spread over shards of their own (by a
// hash of the user ID), each with a lock that is taken after a session
// shard's, never before.
type userIndex struct {
	shards [shardCount]userShard
}

// userShard is one lock and the users it guards.
type userShard struct {
	mu    sync.Mutex
	users map[string]*userData
}

// of returns the shard of a user.
func (x *userIndex) of(user string) *userShard {
	return &x.shards[hashIDs(user, "")&(shardCount-1)]
}

// userData is one user's entry in the index.
type userData struct {
	sessions   *btree.BTreeG[indexedID] // session IDs in ID order
	assetBytes int64
	waits      map[string]waitRef // wait ID -> where it is
}

// waitRef is a wait's entry in the user's index: its session, until the
// wait itself expires.
type waitRef struct {
	session string
	expires time.Time
}

// btreeDegree is the session index's B-tree degree.
const btreeDegree = 32

// indexedID is a session ID in the B-tree with its first 8 bytes as a
// number. An insert compares the new ID with a few dozen held ones; with
// the prefix in the tree's own nodes, almost every comparison is decided
// there, without reading the ID's bytes from wherever they were allocated
// (a cache miss each, which made the insert cost microseconds at 100,000
// sessions). The order is the IDs' order: bytes compared as numbers
// big-endian, then the whole IDs when the prefixes are equal.
type indexedID struct {
	prefix uint64
	id     string
}

// indexed returns id with its prefix.
func indexed(id string) indexedID {
	var p uint64
	for i := range 8 {
		p <<= 8
		if i < len(id) {
			p |= uint64(id[i])
		}
	}
	return indexedID{prefix: p, id: id}
}

// lessID is the session index's order: the IDs' byte order.
func lessID(a, b indexedID) bool {
	if a.prefix != b.prefix {
		return a.prefix < b.prefix
	}
	return a.id < b.id
}

// get returns the user's entry, made when missing. The caller holds mu.
func (x *userShard) get(user string) *userData {
	u := x.users[user]
	if u == nil {
		u = &userData{}
		x.users[user] = u
	}
	return u
}

// addSession puts a session ID into the user's index.
func (x *userIndex) addSession(user, session string) {
	us := x.of(user)
	us.mu.Lock()
	u := us.get(user)
	if u.sessions == nil {
		u.sessions = btree.NewG(btreeDegree, lessID)
	}
	u.sessions.ReplaceOrInsert(indexed(session))
	us.mu.Unlock()
}

// removeSession takes a session ID out of the user's index and gives the
// bytes of its assets back.
func (x *userIndex) removeSession(user, session string, freedBytes int64) {
	us := x.of(user)
	us.mu.Lock()
	if u := us.users[user]; u != nil {
		if u.sessions != nil {
			u.sessions.Delete(indexed(session))
		}
		u.assetBytes -= freedBytes
		us.dropIfEmpty(user, u)
	}
	us.mu.Unlock()
}

// sessionsAfter returns up to limit of the user's session IDs after after
// ("" : from the start), in order; limit <= 0 means all. O(log N + limit).
func (x *userIndex) sessionsAfter(user, after string, limit int) []string {
	us := x.of(user)
	us.mu.Lock()
	defer us.mu.Unlock()
	u := us.users[user]
	if u == nil || u.sessions == nil {
		return nil
	}
	var ids []string
	u.sessions.AscendGreaterOrEqual(indexed(after), func(x indexedID) bool {
		if x.id == after && after != "" {
			return true // after itself is not on the page
		}
		ids = append(ids, x.id)
		return limit <= 0 || len(ids) < limit
	})
	return ids
}

// addWait indexes a wait of the user's session by its ID.
func (x *userIndex) addWait(user, id string, ref waitRef) {
	us := x.of(user)
	us.mu.Lock()
	u := us.get(user)
	if u.waits == nil {
		u.waits = map[string]waitRef{}
	}
	u.waits[id] = ref
	us.mu.Unlock()
}

// waitSession returns the session of the user's wait, unless its entry
// expired at now.
func (x *userIndex) waitSession(user, id string, now time.Time) (string, bool) {
	us := x.of(user)
	us.mu.Lock()
	defer us.mu.Unlock()
	u := us.users[user]
	if u == nil {
		return "", false
	}
	ref, ok := u.waits[id]
	if !ok || !now.Before(ref.expires) {
		return "", false
	}
	return ref.session, true
}

// removeWaits takes the waits of a session out of the user's index (the
// session was deleted, or the waits expired).
func (x *userIndex) removeWaits(user, session string, ids []string) {
	us := x.of(user)
	if len(ids) == 0 {
		return
	}
	us.mu.Lock()
	if u := us.users[user]; u != nil {
		for _, id := range ids {
			if ref, ok := u.waits[id]; ok && ref.session == session {
				delete(u.waits, id)
			}
		}
		us.dropIfEmpty(user, u)
	}
	us.mu.Unlock()
}

// reserveBytes adds n bytes to the user's assets unless that takes them
// past limit (limit <= 0: no limit); it reports whether it did.
func (x *userIndex) reserveBytes(user string, n, limit int64) bool {
	us := x.of(user)
	us.mu.Lock()
	defer us.mu.Unlock()
	u := us.get(user)
	if limit > 0 && u.assetBytes+n > limit {
		us.dropIfEmpty(user, u)
		return false
	}
	u.assetBytes += n
	return true
}

// releaseBytes gives n bytes of the user's assets back.
func (x *userIndex) releaseBytes(user string, n int64) {
	us := x.of(user)
	us.mu.Lock()
	if u := us.users[user]; u != nil {
		u.assetBytes -= n
		us.dropIfEmpty(user, u)
	}
	us.mu.Unlock()
}

// assetBytesOf returns the bytes of all the user's assets.
func (x *userIndex) assetBytesOf(user string) int64 {
	us := x.of(user)
	us.mu.Lock()
	defer us.mu.Unlock()
	if u := us.users[user]; u != nil {
		return u.assetBytes
	}
	return 0
}

// expire drops, in user shard i, the wait entries that expired at now and
// users left with nothing.
func (x *userIndex) expire(i int, now time.Time) {
	us := &x.shards[i]
	us.mu.Lock()
	defer us.mu.Unlock()
	for user, u := range us.users {
		for id, ref := range u.waits {
			if !now.Before(ref.expires) {
				delete(u.waits, id)
			}
		}
		us.dropIfEmpty(user, u)
	}
}

// dropIfEmpty forgets a user who has nothing left. The caller holds mu.
func (x *userShard) dropIfEmpty(user string, u *userData) {
	if (u.sessions == nil || u.sessions.Len() == 0) && u.assetBytes == 0 && len(u.waits) == 0 {
		delete(x.users, user)
	}
}
