package memstore

import (
	"context"
	"maps"
	"time"

	"github.com/harnest/harnest/store"
)

// journal is a run's resume points (store.Journals), kept with its
// response for the receipt TTL from the last point.
type journal struct {
	points   map[string][]byte
	sequence int
	expires  time.Time
}

// RecordPoint logs p's events and keeps the resume point, under the
// session's lock: see store.Journals.
func (s *Store) RecordPoint(ctx context.Context, p store.ResumePoint) error {
	if err := s.closed.check(); err != nil {
		return err
	}
	sh, sp, now, err := s.lockRunForWrite(p.User, p.Session, p.ResponseID, p.Epoch)
	if err != nil {
		return err
	}
	r := sp.response(p.ResponseID)
	if len(p.Events) > 0 {
		s.addEvents(r, p.Events, now)
	}
	if r.journal == nil || !now.Before(r.journal.expires) {
		r.journal = &journal{points: map[string][]byte{}, sequence: -1}
	}
	r.journal.points[p.Key] = copyBytes(p.Data)
	r.journal.sequence = max(r.journal.sequence, p.Sequence)
	r.journal.expires = now.Add(s.receiptTTL)
	sh.expireAt(sp, now.Add(s.receiptTTL))
	sh.mu.Unlock()
	if len(p.Events) > 0 {
		s.hubs.notify(responseKey{p.User, p.Session, p.ResponseID})
	}
	return nil
}

// Journal reads a run's resume points.
func (s *Store) Journal(ctx context.Context, user, session, responseID string) (store.Journal, error) {
	if err := s.closed.check(); err != nil {
		return store.Journal{}, err
	}
	sh, _, r := s.lockResponse(user, session, responseID)
	defer sh.mu.Unlock()
	out := store.Journal{Sequence: -1}
	if r == nil || r.journal == nil || !s.now().Before(r.journal.expires) {
		return out, nil
	}
	out.Points = make(map[string][]byte, len(r.journal.points))
	for k, v := range maps.All(r.journal.points) {
		out.Points[k] = copyBytes(v)
	}
	out.Sequence = r.journal.sequence
	return out, nil
}
