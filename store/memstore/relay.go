package memstore

import (
	"sync"
	"time"

	"github.com/harnest/harnest/store"
)

// relaySpace is the in-process store's relay part (store.Relay): plain Go
// data under one lock, and channels for wake-ups. What has expired is
// decided by the caller's clock (each operation's now), as in Redis; it is
// dropped by the store's own clock (sweep), as Redis drops a key whose TTL
// ran out. Returned byte slices (a feed entry's Item) must not be modified.
//
// This file holds the data and its expiry; the operations are by concept
// in relay_participants.go (pairing codes, participants, session tokens),
// relay_items.go (inboxes and replies), relay_limits.go (rate buckets,
// the spacing of says), relay_feed.go and relay_wake.go (listeners).
type relaySpace struct {
	now    func() time.Time // the store's clock, for dropping what expired
	closed *closedFlag      // the store's: set by Close

	mu       sync.Mutex               // guards the maps below; taken before wakeMu
	codes    map[string]*relayCode    // by code hash
	sessions map[string]*relaySession // by session token hash
	owners   map[string]*relayOwner
	buckets  map[relayBucketKey]*relayBucket
	says     map[relaySayKey]*relaySay // the last say of each participant

	wakeMu    sync.Mutex // guards listeners
	listeners map[relayWake]map[chan struct{}]struct{}
}

type relayCode struct {
	store.PairingCode
	dropAt time.Time
}

type relaySession struct {
	owner, participant string
	dropAt             time.Time
}

// relayOwner is everything of one owner's.
type relayOwner struct {
	participants map[string]*relayParticipant
	items        map[string]*relayItem
	feed         []store.RelayFeedEntry // oldest first, at most store.RelayFeedMax
	feedMS       int64                  // the newest feed ID is feedMS-feedSeq
	feedSeq      int64
}

type relayParticipant struct {
	store.RelayParticipant
	dropAt time.Time
	inbox  map[string]bool // IDs of pending items
}

type relayItem struct {
	store.RelayItem
	dropAt time.Time
}

type relayBucketKey struct {
	owner, name, subject string
	window               int64
}

type relayBucket struct {
	count  int
	dropAt time.Time
}

type relaySayKey struct{ owner, participant string }

// relaySay is the time of a participant's last say, kept for the gap.
type relaySay struct{ at, dropAt time.Time }

// relayWake names what a listener waits for: kind 'p' (an inbox), 'r' (an
// item) or 'f' (a feed) of owner's.
type relayWake struct {
	kind      byte
	owner, id string
}

// newRelaySpace makes the relay part. (How long receipts are kept does
// not apply: each relay operation says how long what it writes lasts.)
func newRelaySpace(now func() time.Time, closed *closedFlag) *relaySpace {
	return &relaySpace{now: now, closed: closed, codes: map[string]*relayCode{}, sessions: map[string]*relaySession{},
		owners: map[string]*relayOwner{}, buckets: map[relayBucketKey]*relayBucket{}, says: map[relaySayKey]*relaySay{},
		listeners: map[relayWake]map[chan struct{}]struct{}{}}
}

// relayMS is a time as the store keeps it: to the millisecond, in UTC.
func relayMS(t time.Time) time.Time { return time.UnixMilli(t.UnixMilli()).UTC() }

// owner returns owner's state, made on first use (sweep drops it once it
// is empty). Called with p.mu held.
func (p *relaySpace) owner(owner string) *relayOwner {
	o := p.owners[owner]
	if o == nil {
		o = &relayOwner{participants: map[string]*relayParticipant{}, items: map[string]*relayItem{}}
		p.owners[owner] = o
	}
	return o
}

// live returns one of owner's participants unless it is unknown or has
// expired by now. Called with p.mu held.
func (p *relaySpace) live(owner, id string, now time.Time) *relayParticipant {
	part := p.owner(owner).participants[id]
	if part == nil || !part.ExpiresAt.After(now) {
		return nil
	}
	return part
}

// sweep drops what expired before now (the store's clock).
func (p *relaySpace) sweep(now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	relayDropExpired(p.codes, now, func(c *relayCode) time.Time { return c.dropAt })
	relayDropExpired(p.sessions, now, func(s *relaySession) time.Time { return s.dropAt })
	relayDropExpired(p.buckets, now, func(b *relayBucket) time.Time { return b.dropAt })
	relayDropExpired(p.says, now, func(s *relaySay) time.Time { return s.dropAt })
	for name, o := range p.owners {
		relayDropExpired(o.participants, now, func(part *relayParticipant) time.Time { return part.dropAt })
		relayDropExpired(o.items, now, func(it *relayItem) time.Time { return it.dropAt })
		if len(o.participants) == 0 && len(o.items) == 0 && len(o.feed) == 0 {
			delete(p.owners, name)
		}
	}
}

// relayDropExpired deletes the values of m whose drop time is not after
// now.
func relayDropExpired[K comparable, V any](m map[K]V, now time.Time, dropAt func(V) time.Time) {
	for k, v := range m {
		if !now.Before(dropAt(v)) {
			delete(m, k)
		}
	}
}

// close drops everything (the part runs no goroutines). Listeners are
// left as they are: nothing will signal them again.
func (p *relaySpace) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.codes, p.sessions, p.owners = map[string]*relayCode{}, map[string]*relaySession{}, map[string]*relayOwner{}
	p.buckets, p.says = map[relayBucketKey]*relayBucket{}, map[relaySayKey]*relaySay{}
}
