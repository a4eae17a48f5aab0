package memstore

import (
	"context"
	"time"

	"github.com/harnest/harnest/store"
)

// AppendEvents logs a batch of events of a running response and signals
// its followers on every hub. Steps that change the receipt use
// CommitResponse, which logs their events with it.
func (s *Store) AppendEvents(ctx context.Context, user, session, responseID string, epoch int, events []store.Event) error {
	if err := s.closed.check(); err != nil {
		return err
	}
	if len(events) == 0 {
		return nil
	}
	sh, sp, now, err := s.lockRunForWrite(user, session, responseID, epoch)
	if err != nil {
		return err
	}
	s.addEvents(sp.response(responseID), events, now)
	sh.expireAt(sp, now.Add(s.receiptTTL))
	sh.mu.Unlock()
	s.hubs.notify(responseKey{user, session, responseID})
	return nil
}

// addEvents logs events into the response's log and keeps the log for the
// receipt TTL. The caller holds the shard's lock.
func (s *Store) addEvents(r *response, events []store.Event, now time.Time) {
	if !now.Before(r.eventsExpires) {
		r.events = eventLog{} // expired: a new log
	}
	r.events.add(events)
	r.eventsExpires = now.Add(s.receiptTTL)
}

// EventsAfter reads up to limit logged events with a sequence greater than
// after (-1 reads from the start). It returns ErrEventsTrimmed when the
// first wanted event is no longer held although later ones are. The events'
// JSON is the stored bytes.
func (s *Store) EventsAfter(ctx context.Context, user, session, responseID string, after, limit int) ([]store.Event, error) {
	if err := s.closed.check(); err != nil {
		return nil, err
	}
	sh, _, r := s.lockResponse(user, session, responseID)
	defer sh.mu.Unlock()
	if r == nil {
		return nil, nil
	}
	return r.liveEvents(s.now()).after(after, limit)
}
