package memstore

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"time"

	"github.com/harnest/harnest/store"
)

// The relay's items: the questions in a participant's inbox and their
// replies (store.Relay).

// EnqueueRelayItem puts a pending item into the inbox of one of owner's
// participants and wakes the inbox's listeners.
func (p *relaySpace) EnqueueRelayItem(_ context.Context, owner string, it store.RelayItem, maxPending int) error {
	if err := p.closed.check(); err != nil {
		return err
	}
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
	if err := p.closed.check(); err != nil {
		return store.RelayItem{}, false, err
	}
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
	if err := p.closed.check(); err != nil {
		return nil, err
	}
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
	if err := p.closed.check(); err != nil {
		return err
	}
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
	if err := p.closed.check(); err != nil {
		return err
	}
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
