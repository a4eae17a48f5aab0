package runtime

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"sync/atomic"
	"time"
)

// Queued responses and the per-user limits (limits.go). A queued response
// is a turn the user asked for, so the limits hold for it as for any:
//
//   - it is accepted only as a new turn is: with a slot free among the
//     user's responses in progress and a turn left today (else 429
//     rate_limited, nothing stored), both checked before the session is
//     found busy;
//   - turns per day: its turn stays counted once it is queued; a queued
//     response cancelled later stays counted, as a running one cancelled
//     does;
//   - concurrent responses: it is not in progress while it waits, so it
//     holds no slot then; it takes one when it starts, like a new turn,
//     and while the user has no slot free it stays at the head of its
//     queue (its session held by nobody) until a sweep finds a slot free
//     (once per liveness TTL). A queued response never runs past the
//     limit.

// queuedSlot is the slot a queued response takes before it starts: hold
// (nil when no limit of concurrent responses is set), and the response
// it ends when the slot is lost (owner, set once the response exists).
type queuedSlot struct {
	hold  *userHold
	owner *atomic.Pointer[Response]
}

// slotForQueued takes a slot among the user's responses in progress for
// the head of the session's queue; false, holding nothing, when the user
// has none free (or the store did not answer): the head waits.
func (s *Service) slotForQueued(ctx context.Context, user, session string) (queuedSlot, bool) {
	slot := queuedSlot{owner: new(atomic.Pointer[Response])}
	limit := s.limits.ConcurrentResponses
	if limit <= 0 {
		return slot, true
	}
	ids, _, err := s.store.QueuedResponses(ctx, user, session, 1)
	if err != nil || len(ids) == 0 {
		return slot, false
	}
	// A session still held cannot start its head: no slot is taken for it
	// (the holder's end starts the head, or a sweep), so that a starter
	// does not hold a slot a new turn of the user needs for nothing.
	if active, err := s.store.ActiveResponse(ctx, user, session); err != nil || active != "" {
		return slot, false
	}
	// The slot is held under a holder of this attempt's own: two starters
	// of one head (this replica at the end of the turn before it, and a
	// sweep) may both take one; the one whose StartQueued finds nothing
	// gives back its own, never the slot the winner runs with. (Under the
	// head's ID alone a holder that holds already keeps its slot, so the
	// loser's release freed the winner's.)
	holder := queuedSlotHolder(ids[0])
	_, ok, err := s.store.TakeUserSlot(ctx, user, holder, limit, s.lease, s.now())
	if err != nil {
		s.log.Warn("cannot take a slot for a queued response; a sweep tries again", "responseId", ids[0], "err", err)
		return slot, false
	}
	if !ok {
		s.log.Info("a queued response waits for a slot among its user's responses in progress", "responseId", ids[0], "limit", limit)
		return slot, false
	}
	owner := slot.owner
	h := &userHold{svc: s, user: user, holder: holder, slot: true, lost: func() {
		if r := owner.Load(); r != nil {
			r.slotLost()
		}
	}}
	h.mu.Lock()
	h.renew = time.AfterFunc(s.lease/3, h.renewSlot)
	h.mu.Unlock()
	slot.hold = h
	return slot, true
}

// queuedSlotHolder names the slot one attempt to start a queued response
// takes: the response's ID and a random suffix.
func queuedSlotHolder(responseID string) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return responseID + "~" + hex.EncodeToString(b[:])
}
