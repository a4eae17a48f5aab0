package memstore

import (
	"context"
	"sort"
	"time"

	"github.com/harnest/harnest/runtime/store"
)

// A response's event log is a slice of batches, oldest first, as the Redis
// store keeps a stream of entries: each write (a flush, or the commit of a
// step) adds one batch of consecutive events. The log is trimmed by whole
// batches to the last store.MaxEvents events (a batch that holds the
// oldest of them is kept whole), and a reader asking for events before the
// first held batch is told so (ErrEventsTrimmed) exactly as the Redis
// store tells it.

// eventLog is a response's bounded event log.
type eventLog struct {
	batches [][]store.Event // each non-empty, sequences increasing
}

// last returns the sequence of the newest event held (ok false if none).
func (l *eventLog) last() (int, bool) {
	if len(l.batches) == 0 {
		return 0, false
	}
	b := l.batches[len(l.batches)-1]
	return b[len(b)-1].Sequence, true
}

// add appends a batch: copies of the events whose sequence is after the
// newest held (a batch written again after a write whose answer was lost
// repeats events the log already has), their JSON in one buffer. Then it
// trims the batches that hold only events older than the last MaxEvents.
func (l *eventLog) add(events []store.Event) {
	if last, ok := l.last(); ok {
		i := 0
		for i < len(events) && events[i].Sequence <= last {
			i++
		}
		events = events[i:]
	}
	if len(events) == 0 {
		return
	}
	size := 0
	for _, e := range events {
		size += len(e.JSON)
	}
	buf := make([]byte, 0, size)
	batch := make([]store.Event, len(events))
	for i, e := range events {
		start := len(buf)
		buf = append(buf, e.JSON...)
		batch[i] = store.Event{Sequence: e.Sequence, Type: e.Type, JSON: buf[start:len(buf):len(buf)]}
	}
	l.batches = append(l.batches, batch)
	oldest := batch[len(batch)-1].Sequence + 1 - store.MaxEvents
	drop := 0
	for drop < len(l.batches)-1 && lastOf(l.batches[drop]) < oldest {
		l.batches[drop] = nil // let the dropped batch go
		drop++
	}
	l.batches = l.batches[drop:]
}

func lastOf(batch []store.Event) int { return batch[len(batch)-1].Sequence }

// after returns up to limit events with a sequence greater than after
// (limit <= 0: all), or ErrEventsTrimmed when the first of them is no
// longer held although later ones are.
func (l *eventLog) after(after, limit int) ([]store.Event, error) {
	i := sort.Search(len(l.batches), func(i int) bool { return lastOf(l.batches[i]) > after })
	if i == len(l.batches) {
		return nil, nil
	}
	if l.batches[i][0].Sequence > after+1 {
		return nil, store.ErrEventsTrimmed
	}
	n := 0 // the events to return, give or take the first batch's older ones
	for j := i; j < len(l.batches) && (limit <= 0 || n < limit); j++ {
		n += len(l.batches[j])
	}
	if limit > 0 {
		n = min(n, limit)
	}
	out := make([]store.Event, 0, n)
	for ; i < len(l.batches); i++ {
		for _, e := range l.batches[i] {
			if e.Sequence <= after {
				continue
			}
			if limit > 0 && len(out) == limit {
				return out, nil
			}
			out = append(out, e)
		}
	}
	return out, nil
}

// AppendEvents logs a batch of events of a running response and signals
// its followers on every hub. Steps that change the receipt use
// CommitResponse, which logs their events with it.
func (s *Store) AppendEvents(ctx context.Context, user, session, responseID string, events []store.Event) error {
	if err := s.closed.check(); err != nil {
		return err
	}
	if len(events) == 0 {
		return nil
	}
	sh, sp := s.lockSpaceForWrite(user, session)
	s.addEvents(sp.response(responseID), events, s.now())
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
	sh, sp := s.lockSpace(user, session)
	defer sh.mu.Unlock()
	if sp == nil {
		return nil, nil
	}
	r := sp.responses[responseID]
	if r == nil {
		return nil, nil
	}
	return r.liveEvents(s.now()).after(after, limit)
}
