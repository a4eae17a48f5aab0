package memstore

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/harnest/harnest/runtime/store"
)

// relaySpace is the in-process store's relay part (store.Relay): plain Go
// data under one lock, and channels for wake-ups. What has expired is
// decided by the caller's clock (each operation's now), as in Redis; it is
// dropped by the store's own clock (sweep), as Redis drops a key whose TTL
// ran out. Returned byte slices (a feed entry's Item) must not be modified.
type relaySpace struct {
	now func() time.Time // the store's clock, for dropping what expired

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

func newRelaySpace(now func() time.Time, ttl time.Duration) *relaySpace {
	// ttl (how long receipts are kept) does not apply: each relay
	// operation says how long what it writes lasts.
	return &relaySpace{now: now, codes: map[string]*relayCode{}, sessions: map[string]*relaySession{},
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

// CreatePairingCode stores a single-use pairing code until c.ExpiresAt.
func (p *relaySpace) CreatePairingCode(_ context.Context, c store.PairingCode, now time.Time) error {
	keep := c.ExpiresAt.Sub(now)
	if keep <= 0 {
		return fmt.Errorf("store: the pairing code expires at %s, before now (%s)", c.ExpiresAt, now)
	}
	c.ExpiresAt = relayMS(c.ExpiresAt)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.codes[c.Hash] = &relayCode{PairingCode: c, dropAt: p.now().Add(keep)}
	return nil
}

// ExchangePairingCode consumes a live, matching code and creates the
// participant of the code's owner with its session token.
func (p *relaySpace) ExchangePairingCode(_ context.Context, x store.Pairing) (store.RelayParticipant, error) {
	if x.TTL <= 0 {
		return store.RelayParticipant{}, fmt.Errorf("store: a pairing needs a positive TTL, not %s", x.TTL)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.codes[x.CodeHash]
	switch {
	case c == nil:
		return store.RelayParticipant{}, store.ErrPairingInvalid
	case !c.ExpiresAt.After(x.Now):
		delete(p.codes, x.CodeHash)
		return store.RelayParticipant{}, store.ErrPairingInvalid
	case c.Name != x.Name || c.Kind != x.Kind:
		return store.RelayParticipant{}, store.ErrPairingMismatch
	}
	delete(p.codes, x.CodeHash)
	drop := p.now().Add(x.TTL)
	part := &relayParticipant{RelayParticipant: store.RelayParticipant{ID: x.ParticipantID, Owner: c.Owner,
		Name: x.Name, Kind: x.Kind, Description: x.Description, State: store.RelayActive,
		PairedAt: relayMS(x.Now), ExpiresAt: relayMS(x.Now.Add(x.TTL)), TokenHash: x.TokenHash},
		dropAt: drop, inbox: map[string]bool{}}
	p.owner(c.Owner).participants[x.ParticipantID] = part
	p.sessions[x.TokenHash] = &relaySession{owner: c.Owner, participant: x.ParticipantID, dropAt: drop}
	return part.RelayParticipant, nil
}

// ParticipantByToken finds the live participant of a session token.
func (p *relaySpace) ParticipantByToken(_ context.Context, tokenHash string, now time.Time) (store.RelayParticipant, bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if sess := p.sessions[tokenHash]; sess != nil {
		if part := p.live(sess.owner, sess.participant, now); part != nil && part.TokenHash == tokenHash {
			return part.RelayParticipant, true, nil
		}
	}
	return store.RelayParticipant{}, false, nil
}

// GetParticipant reads one of owner's live participants.
func (p *relaySpace) GetParticipant(_ context.Context, owner, id string, now time.Time) (store.RelayParticipant, bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if part := p.live(owner, id, now); part != nil {
		return part.RelayParticipant, true, nil
	}
	return store.RelayParticipant{}, false, nil
}

// ListParticipants lists owner's live participants, oldest pairing first.
func (p *relaySpace) ListParticipants(_ context.Context, owner string, now time.Time) ([]store.RelayParticipant, error) {
	p.mu.Lock()
	var out []store.RelayParticipant
	for _, part := range p.owner(owner).participants {
		if part.ExpiresAt.After(now) {
			out = append(out, part.RelayParticipant)
		}
	}
	p.mu.Unlock()
	slices.SortFunc(out, func(a, b store.RelayParticipant) int {
		return cmp.Or(a.PairedAt.Compare(b.PairedAt), strings.Compare(a.ID, b.ID))
	})
	return out, nil
}

// SetParticipantState pauses or resumes one of owner's live participants.
func (p *relaySpace) SetParticipantState(_ context.Context, owner, id, state string, now time.Time) (bool, error) {
	if state != store.RelayActive && state != store.RelayPaused {
		return false, fmt.Errorf("store: a participant's state is %q or %q, not %q", store.RelayActive, store.RelayPaused, state)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	part := p.live(owner, id, now)
	if part == nil {
		return false, nil
	}
	part.State = state
	p.wake(relayWake{'p', owner, id})
	return true, nil
}

// DisconnectParticipant removes one of owner's live participants with its
// session token, inbox and spacing.
func (p *relaySpace) DisconnectParticipant(_ context.Context, owner, id string, now time.Time) (bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	part := p.live(owner, id, now)
	if part == nil {
		return false, nil
	}
	delete(p.owners[owner].participants, id)
	delete(p.sessions, part.TokenHash)
	delete(p.says, relaySayKey{owner, id})
	p.wake(relayWake{'p', owner, id})
	return true, nil
}

// EnqueueRelayItem puts a pending item into the inbox of one of owner's
// participants and wakes the inbox's listeners.
func (p *relaySpace) EnqueueRelayItem(_ context.Context, owner string, it store.RelayItem, maxPending int) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	part := p.live(owner, it.Participant, it.AskedAt)
	switch {
	case part == nil:
		return store.ErrParticipantGone
	case part.State == store.RelayPaused:
		return store.ErrParticipantPaused
	}
	o := p.owners[owner]
	for id := range part.inbox { // items whose deadline passed leave the inbox
		if item := o.items[id]; item == nil || !item.DeadlineAt.After(it.AskedAt) {
			delete(part.inbox, id)
		}
	}
	if len(part.inbox) >= maxPending {
		return store.ErrInboxFull
	}
	keep := it.DeadlineAt.Sub(it.AskedAt) + time.Hour // as long as Redis keeps it
	it.AskedAt, it.DeadlineAt, it.State, it.Reply = relayMS(it.AskedAt), relayMS(it.DeadlineAt), store.RelayItemPending, ""
	o.items[it.ID] = &relayItem{RelayItem: it, dropAt: p.now().Add(keep)}
	part.inbox[it.ID] = true
	p.wake(relayWake{'p', owner, it.Participant})
	return nil
}

// GetRelayItem reads one of owner's items.
func (p *relaySpace) GetRelayItem(_ context.Context, owner, id string) (store.RelayItem, bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if it := p.owner(owner).items[id]; it != nil {
		return it.RelayItem, true, nil
	}
	return store.RelayItem{}, false, nil
}

// PendingRelayItems lists the participant's pending items whose deadline
// is after now, oldest first.
func (p *relaySpace) PendingRelayItems(_ context.Context, owner, participant string, now time.Time) ([]store.RelayItem, error) {
	p.mu.Lock()
	var out []store.RelayItem
	if o := p.owner(owner); o.participants[participant] != nil {
		for id := range o.participants[participant].inbox {
			if it := o.items[id]; it != nil && it.State == store.RelayItemPending && it.DeadlineAt.After(now) {
				out = append(out, it.RelayItem)
			}
		}
	}
	p.mu.Unlock()
	slices.SortFunc(out, func(a, b store.RelayItem) int {
		return cmp.Or(a.AskedAt.Compare(b.AskedAt), a.DeadlineAt.Compare(b.DeadlineAt), strings.Compare(a.ID, b.ID))
	})
	return out, nil
}

// ReplyRelayItem answers a pending item of the participant once.
func (p *relaySpace) ReplyRelayItem(_ context.Context, owner, participant, id, reply string, now time.Time) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	part := p.live(owner, participant, now)
	switch {
	case part == nil:
		return store.ErrParticipantGone
	case part.State == store.RelayPaused:
		return store.ErrParticipantPaused
	}
	it := p.owners[owner].items[id]
	switch {
	case it == nil || it.Participant != participant:
		return store.ErrRelayItemUnknown
	case it.State == store.RelayItemAnswered:
		return store.ErrRelayItemAnswered
	case it.State != store.RelayItemPending || !it.DeadlineAt.After(now):
		return store.ErrRelayItemExpired
	}
	it.State, it.Reply = store.RelayItemAnswered, reply
	delete(part.inbox, id)
	p.wake(relayWake{'r', owner, id})
	return nil
}

// CancelRelayItem withdraws a pending item from the inbox.
func (p *relaySpace) CancelRelayItem(_ context.Context, owner, participant, id string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	o := p.owner(owner)
	if it := o.items[id]; it != nil && it.Participant == participant && it.State == store.RelayItemPending {
		it.State = store.RelayItemCancelled
		if part := o.participants[participant]; part != nil {
			delete(part.inbox, id)
		}
		p.wake(relayWake{'r', owner, id})
	}
	return nil
}

// TakeRelayBucket counts one request in a fixed-window bucket.
func (p *relaySpace) TakeRelayBucket(_ context.Context, b store.RelayBucket, now time.Time) (bool, time.Duration, error) {
	if b.Window < time.Millisecond {
		return false, 0, fmt.Errorf("store: a rate bucket's window must be at least a millisecond, not %s", b.Window)
	}
	w := now.UnixMilli() / b.Window.Milliseconds()
	key := relayBucketKey{b.Owner, b.Name, b.Subject, w}
	p.mu.Lock()
	defer p.mu.Unlock()
	bucket := p.buckets[key]
	if bucket == nil {
		bucket = &relayBucket{dropAt: p.now().Add(2 * b.Window)}
		p.buckets[key] = bucket
	}
	if bucket.count++; bucket.count <= b.Limit {
		return true, 0, nil
	}
	return false, time.UnixMilli((w + 1) * b.Window.Milliseconds()).Sub(now), nil
}

// SpaceRelaySay allows one say per gap for one of owner's participants.
func (p *relaySpace) SpaceRelaySay(_ context.Context, owner, participant string, gap time.Duration, now time.Time) (bool, time.Duration, error) {
	if gap < time.Millisecond {
		return false, 0, fmt.Errorf("store: the gap between says must be at least a millisecond, not %s", gap)
	}
	key, now := relaySayKey{owner, participant}, relayMS(now)
	p.mu.Lock()
	defer p.mu.Unlock()
	if last := p.says[key]; last != nil && p.now().Before(last.dropAt) && now.Sub(last.at) < gap {
		return false, last.at.Add(gap).Sub(now), nil
	}
	p.says[key] = &relaySay{at: now, dropAt: p.now().Add(gap)}
	return true, 0, nil
}

// AppendRelayFeed appends an entry to owner's feed and wakes its listeners.
func (p *relaySpace) AppendRelayFeed(_ context.Context, owner string, e store.RelayFeedEntry) (string, error) {
	e.Item = slices.Clone(e.Item)
	p.mu.Lock()
	defer p.mu.Unlock()
	o := p.owner(owner)
	if t := p.now().UnixMilli(); t > o.feedMS {
		o.feedMS, o.feedSeq = t, 0
	} else {
		o.feedSeq++
	}
	e.ID = strconv.FormatInt(o.feedMS, 10) + "-" + strconv.FormatInt(o.feedSeq, 10)
	if o.feed = append(o.feed, e); len(o.feed) > store.RelayFeedMax {
		o.feed = slices.Delete(o.feed, 0, len(o.feed)-store.RelayFeedMax)
	}
	p.wake(relayWake{'f', owner, ""})
	return e.ID, nil
}

// NewestRelayFeed returns the newest n entries of owner's feed, newest
// first.
func (p *relaySpace) NewestRelayFeed(_ context.Context, owner string, n int) ([]store.RelayFeedEntry, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	feed := p.owner(owner).feed
	out := slices.Clone(feed[max(0, len(feed)-n):])
	slices.Reverse(out)
	return out, nil
}

// RelayFeedAfter returns up to n entries of owner's feed after the ID
// after, oldest first.
func (p *relaySpace) RelayFeedAfter(_ context.Context, owner, after string, n int) ([]store.RelayFeedEntry, error) {
	a, ok := parseRelayFeedID(after)
	if !ok {
		return nil, fmt.Errorf("store: %q is not a feed ID (two decimal numbers, \"<ms>-<seq>\")", after)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []store.RelayFeedEntry
	for _, e := range p.owner(owner).feed {
		if id, _ := parseRelayFeedID(e.ID); len(out) < n && cmp.Or(cmp.Compare(id[0], a[0]), cmp.Compare(id[1], a[1])) > 0 {
			out = append(out, e)
		}
	}
	return out, nil
}

// parseRelayFeedID reads "<ms>-<seq>" (or "<ms>", as Redis does).
func parseRelayFeedID(s string) ([2]uint64, bool) {
	a, b, hasSeq := strings.Cut(s, "-")
	x, err := strconv.ParseUint(a, 10, 64)
	var y uint64
	if err == nil && hasSeq {
		y, err = strconv.ParseUint(b, 10, 64)
	}
	return [2]uint64{x, y}, err == nil
}

// LastRelayFeedID is the ID of the newest entry of owner's feed, or "0-0".
func (p *relaySpace) LastRelayFeedID(_ context.Context, owner string) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if feed := p.owner(owner).feed; len(feed) > 0 {
		return feed[len(feed)-1].ID, nil
	}
	return "0-0", nil
}

// ListenRelayInbox signals whenever an item is enqueued for the
// participant or it is paused, resumed or disconnected.
func (p *relaySpace) ListenRelayInbox(_ context.Context, owner, participant string) (<-chan struct{}, func(), error) {
	return p.listen(relayWake{'p', owner, participant})
}

// ListenRelayItem signals whenever the item is answered or cancelled.
func (p *relaySpace) ListenRelayItem(_ context.Context, owner, id string) (<-chan struct{}, func(), error) {
	return p.listen(relayWake{'r', owner, id})
}

// ListenRelayFeed signals whenever an entry is appended to owner's feed.
func (p *relaySpace) ListenRelayFeed(_ context.Context, owner string) (<-chan struct{}, func(), error) {
	return p.listen(relayWake{'f', owner, ""})
}

// listen adds a listener of w; stop removes it.
func (p *relaySpace) listen(w relayWake) (<-chan struct{}, func(), error) {
	ch := make(chan struct{}, 1)
	p.wakeMu.Lock()
	defer p.wakeMu.Unlock()
	if p.listeners[w] == nil {
		p.listeners[w] = map[chan struct{}]struct{}{}
	}
	p.listeners[w][ch] = struct{}{}
	return ch, func() {
		p.wakeMu.Lock()
		defer p.wakeMu.Unlock()
		if delete(p.listeners[w], ch); len(p.listeners[w]) == 0 {
			delete(p.listeners, w)
		}
	}, nil
}

// wake signals every listener of w without blocking (a channel that holds
// a signal needs no second one).
func (p *relaySpace) wake(w relayWake) {
	p.wakeMu.Lock()
	defer p.wakeMu.Unlock()
	for ch := range p.listeners[w] {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
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

// close has nothing to stop: the relay part runs no goroutines.
func (p *relaySpace) close() {}
