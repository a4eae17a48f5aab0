package memstore

import (
	"context"
	"encoding/json"
	"time"

	"github.com/harnest/harnest/store"
)

// BeginResponse takes the session's lease for the response, writes (a copy
// of) its in_progress receipt, registers the run and returns the session
// state, all under the session's lock. With b.CreateSession it makes the
// session first. It returns ErrSessionNotFound, ErrResponseExists, or
// ErrSessionBusy when another response holds the session; nothing is kept
// then.
func (s *Store) BeginResponse(ctx context.Context, b store.Begin) (map[string]json.RawMessage, error) {
	if err := s.closed.check(); err != nil {
		return nil, err
	}
	begun := false
	defer func() { // after the unlock: the session's followers learn of a new response
		if begun {
			s.hubs.notify(responseKey{b.User, b.Session, ""})
		}
	}()
	sh, sp := s.lockSpaceForWrite(b.User, b.Session)
	defer sh.mu.Unlock()
	now := s.now()
	switch {
	case !b.CreateSession && !sp.hasSession:
		if sp.empty(now) {
			s.dropSpace(sh, spaceKey{b.User, b.Session})
		}
		return nil, store.ErrSessionNotFound
	case hasReceipt(sp.responses.get(b.ResponseID), now):
		return nil, store.ErrResponseExists
	case sp.lease.heldBy(now) != "" || len(sp.queue) > 0: // a queue goes first (queue.go)
		return nil, store.ErrSessionBusy
	}
	if !sp.hasSession {
		sp.session = sessionData{createdAt: b.Now, updatedAt: b.Now}
		sp.hasSession = true
		s.users.addSession(b.User, b.Session)
	}
	state := stateOf(&sp.session)
	sp.lease = lease{holder: b.ResponseID, expires: now.Add(b.Lease)}
	sp.addToOrder(b.ResponseID)
	r := sp.response(b.ResponseID)
	r.setReceipt(b.Receipt, now, s.receiptTTL)
	r.webhook = b.Webhook
	r.request = copyBytes(b.Request)
	sh.expireAt(sp, now.Add(s.receiptTTL))
	s.runs.register(runKey{b.User, b.Session, b.ResponseID, b.Replica}, now.Add(b.Lease), 1)
	begun = true
	return state, nil
}

// CommitResponse writes the receipt, its events, the transcript messages,
// the state delta and the wait of one step, and releases the lease when
// c.Release, all under the session's lock. It returns ErrLeaseLost when
// another response holds the session or the session is gone (deleted
// after the lease lapsed), and ErrReceiptFinal when the lease lapsed and
// the receipt is already final; nothing is written then. With
// c.CreateSession it first makes the session, when there is none.
func (s *Store) CommitResponse(ctx context.Context, c store.Commit) error {
	if err := s.closed.check(); err != nil {
		return err
	}
	if c.CreateSession && !c.Release {
		return store.ErrCreateWithoutRelease
	}
	if err := checkUsage(c.Usage); err != nil {
		return err
	}
	var sh *shard
	var sp *space
	if c.CreateSession {
		sh, sp = s.lockSpaceForWrite(c.User, c.Session)
	} else {
		sh, sp = s.lockSpace(c.User, c.Session)
	}
	now := s.now()
	created := c.CreateSession && !sp.hasSession
	if created {
		s.createForCommit(sp, c)
	}
	if sp == nil || !sp.hasSession {
		// Gone: the step would make a transcript and state without a
		// session. (A held lease keeps a session from being deleted.)
		sh.mu.Unlock()
		return store.ErrLeaseLost
	}
	if sp.responses.get(c.ResponseID).fenced(c.Epoch) {
		sh.mu.Unlock()
		return store.ErrFenced
	}
	holder := sp.lease.heldBy(now)
	held := holder != ""
	if held && holder != c.ResponseID {
		sh.mu.Unlock()
		return store.ErrLeaseLost
	}
	if !held && !created {
		// The lease lapsed: a sweeper may have made the receipt final
		// meanwhile (while the response holds its lease, nobody else
		// writes its receipt, and a renewal never takes a lease back over
		// a final receipt).
		if r := sp.responses.get(c.ResponseID); r != nil && r.final {
			if _, ok := r.liveReceipt(now); ok {
				sh.mu.Unlock()
				return store.ErrReceiptFinal
			}
		}
	}
	r := sp.response(c.ResponseID)
	if len(c.StateDelta) > 0 {
		sp.session.state = copyState(c.StateDelta, sp.session.state)
		sp.session.updatedAt = c.Now
	}
	if len(c.Events) > 0 {
		s.addEvents(r, c.Events, now)
	}
	if len(c.Messages) > 0 {
		sp.transcript.append(c.Messages)
		sp.session.updatedAt = c.Now
	}
	r.setReceipt(c.Receipt, now, s.receiptTTL)
	sh.expireAt(sp, now.Add(s.receiptTTL)) // the receipt's and the events'
	if c.Wait != nil {
		s.addWait(sh, sp, c.User, c.Session, c.Wait)
	}
	if c.Release && !created { // a session made by this step had no lease nor run
		if held {
			sp.lease = lease{}
		}
		s.runs.unregister(runKey{c.User, c.Session, c.ResponseID, c.Replica})
	}
	if c.Release && c.SteersLeft != nil {
		*c.SteersLeft = len(sp.steers[c.ResponseID]) > 0
	}
	sh.mu.Unlock()
	if c.Release {
		s.usageSpace.addDay(c.User, c.UsageDay, c.Usage) // nobody reads the counters with the step
	}
	if len(c.Events) > 0 {
		s.hubs.notify(responseKey{c.User, c.Session, c.ResponseID})
	}
	return nil
}

// createForCommit makes the session of a step with CreateSession, under the
// space's lock, and lists it for its user.
func (s *Store) createForCommit(sp *space, c store.Commit) {
	sp.session = sessionData{createdAt: c.Now, updatedAt: c.Now}
	sp.hasSession = true
	s.users.addSession(c.User, c.Session)
	sp.addToOrder(c.ResponseID)
}

// ReplaceReceipt replaces a receipt that is not final, without touching
// the session: a resumed response is in_progress again, and a response
// whose step could not be committed (lease lost) records its failure. It
// returns ErrReceiptFinal, writing nothing, when the receipt is already
// final.
func (s *Store) ReplaceReceipt(ctx context.Context, user, session, responseID string, epoch int, receipt []byte) error {
	if err := s.closed.check(); err != nil {
		return err
	}
	sh, sp, now, err := s.lockRunForWrite(user, session, responseID, epoch)
	if err != nil {
		return err
	}
	defer sh.mu.Unlock()
	r := sp.response(responseID)
	if _, ok := r.liveReceipt(now); ok && r.final {
		return store.ErrReceiptFinal
	}
	r.setReceipt(receipt, now, s.receiptTTL)
	sh.expireAt(sp, now.Add(s.receiptTTL))
	return nil
}

// RenewLease extends the response's hold on its session, or takes it again
// when it lapsed, nobody else took it and its receipt is not final (the
// replica lived through a store outage longer than the lease, and no
// sweeper failed the response meanwhile) and the session still exists.
// Either way it refreshes the response's entry among the running
// responses, as the Redis store does. false means the response does not
// hold the session.
func (s *Store) RenewLease(ctx context.Context, user, session, responseID, replica string, epoch int, leaseFor time.Duration) (bool, error) {
	if err := s.closed.check(); err != nil {
		return false, err
	}
	sh, sp, now, err := s.lockRunForWrite(user, session, responseID, epoch)
	if err != nil {
		return false, err
	}
	defer sh.mu.Unlock()
	s.runs.register(runKey{user, session, responseID, replica}, now.Add(leaseFor), epoch)
	switch holder := sp.lease.heldBy(now); holder {
	case responseID:
	case "":
		if !sp.hasSession {
			if sp.empty(now) { // made by this call: nothing would drop it
				s.dropSpace(sh, spaceKey{user, session})
			}
			return false, nil // the session is gone: nothing to hold
		}
		if r := sp.responses.get(responseID); r != nil {
			if _, ok := r.liveReceipt(now); ok && r.final {
				return false, nil
			}
		}
	default:
		return false, nil
	}
	sp.lease = lease{holder: responseID, expires: now.Add(leaseFor)}
	return true, nil
}

// Receipt reads a response's receipt in the user's session; found is false
// when there is none (or it expired). The bytes are the stored ones.
func (s *Store) Receipt(ctx context.Context, user, session, responseID string) ([]byte, bool, error) {
	if err := s.closed.check(); err != nil {
		return nil, false, err
	}
	sh, sp := s.lockSpace(user, session)
	defer sh.mu.Unlock()
	if sp == nil {
		return nil, false, nil
	}
	r := sp.responses.get(responseID)
	if r == nil {
		return nil, false, nil
	}
	b, ok := r.liveReceipt(s.now())
	return b, ok, nil
}

// hasReceipt reports whether r (nil: none) has a live receipt at now.
func hasReceipt(r *response, now time.Time) bool {
	if r == nil {
		return false
	}
	_, ok := r.liveReceipt(now)
	return ok
}
