package memstore

import (
	"context"
	"sort"
	"sync"
	"time"

	"github.com/harnest/harnest/store"
)

// schedulesSpace keeps the users' schedules and their fires (the
// Schedules slice) under one lock: every operation is atomic.
type schedulesSpace struct {
	closed *closedFlag
	mu     sync.Mutex
	scheds map[store.ScheduleKey]*memSchedule
}

type memSchedule struct {
	rec   store.ScheduleRecord
	fires map[int64]*store.FireRecord
}

func newSchedulesSpace(closed *closedFlag) *schedulesSpace {
	return &schedulesSpace{closed: closed, scheds: map[store.ScheduleKey]*memSchedule{}}
}

func copyRecord(rec store.ScheduleRecord) store.ScheduleRecord {
	rec.JSON = append([]byte(nil), rec.JSON...)
	return rec
}

// CreateSchedule stores a new schedule, within the user's bound.
func (s *schedulesSpace) CreateSchedule(ctx context.Context, rec store.ScheduleRecord, max int) error {
	if err := s.closed.check(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	key := store.ScheduleKey{User: rec.User, ID: rec.ID}
	if _, ok := s.scheds[key]; ok {
		return store.ErrScheduleExists
	}
	if max > 0 {
		n := 0
		for k := range s.scheds {
			if k.User == rec.User {
				n++
			}
		}
		if n >= max {
			return store.ErrScheduleLimit
		}
	}
	rec = copyRecord(rec)
	rec.Version, rec.Fires = 1, 0
	rec.NextFire = rec.NextFire.Truncate(time.Millisecond)
	s.scheds[key] = &memSchedule{rec: rec, fires: map[int64]*store.FireRecord{}}
	return nil
}

// GetSchedule reads one schedule.
func (s *schedulesSpace) GetSchedule(ctx context.Context, user, id string) (store.ScheduleRecord, bool, error) {
	if err := s.closed.check(); err != nil {
		return store.ScheduleRecord{}, false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.scheds[store.ScheduleKey{User: user, ID: id}]
	if !ok {
		return store.ScheduleRecord{}, false, nil
	}
	return copyRecord(m.rec), true, nil
}

// ListSchedules returns a page of the user's schedules in ID order.
func (s *schedulesSpace) ListSchedules(ctx context.Context, user, after string, limit int) ([]store.ScheduleRecord, error) {
	if err := s.closed.check(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []store.ScheduleRecord
	for k, m := range s.scheds {
		if k.User == user && k.ID > after {
			out = append(out, copyRecord(m.rec))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// UpdateSchedule replaces a schedule that did not change since it was read.
func (s *schedulesSpace) UpdateSchedule(ctx context.Context, rec store.ScheduleRecord) error {
	if err := s.closed.check(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.scheds[store.ScheduleKey{User: rec.User, ID: rec.ID}]
	switch {
	case !ok:
		return store.ErrScheduleNotFound
	case m.rec.Version != rec.Version:
		return store.ErrScheduleChanged
	}
	fires := m.rec.Fires
	m.rec = copyRecord(rec)
	m.rec.NextFire = rec.NextFire.Truncate(time.Millisecond)
	m.rec.Version, m.rec.Fires = rec.Version+1, fires
	return nil
}

// DeleteSchedule removes a schedule and its fires.
func (s *schedulesSpace) DeleteSchedule(ctx context.Context, user, id string) (bool, error) {
	if err := s.closed.check(); err != nil {
		return false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	key := store.ScheduleKey{User: user, ID: id}
	_, ok := s.scheds[key]
	delete(s.scheds, key)
	return ok, nil
}

// DueSchedules returns the schedules due at now, the earliest first.
func (s *schedulesSpace) DueSchedules(ctx context.Context, now time.Time, limit int) ([]store.ScheduleKey, error) {
	if err := s.closed.check(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	type due struct {
		key store.ScheduleKey
		at  time.Time
	}
	var all []due
	for k, m := range s.scheds {
		if !m.rec.Paused && !m.rec.NextFire.IsZero() && !m.rec.NextFire.After(now) {
			all = append(all, due{k, m.rec.NextFire})
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].at.Before(all[j].at) })
	if limit > 0 && len(all) > limit {
		all = all[:limit]
	}
	out := make([]store.ScheduleKey, len(all))
	for i, d := range all {
		out[i] = d.key
	}
	return out, nil
}

// ClaimFire claims one fire by compare-and-set on the next fire time.
func (s *schedulesSpace) ClaimFire(ctx context.Context, c store.ScheduleClaim) (store.FireRecord, bool, error) {
	if err := s.closed.check(); err != nil {
		return store.FireRecord{}, false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.scheds[store.ScheduleKey{User: c.User, ID: c.ID}]
	if !ok {
		return store.FireRecord{}, false, nil
	}
	if !c.Due.IsZero() {
		if m.rec.Paused || m.rec.NextFire.IsZero() || !m.rec.NextFire.Equal(c.Due.Truncate(time.Millisecond)) {
			return store.FireRecord{}, false, nil
		}
		m.rec.NextFire = c.Next.Truncate(time.Millisecond)
	}
	m.rec.Version++
	if c.Fire == nil {
		return store.FireRecord{}, true, nil
	}
	m.rec.Fires++
	f := *c.Fire
	f.Seq, f.Started, f.Failure = m.rec.Fires, false, ""
	f.HeldUntil = c.Now.Add(c.Lease).Truncate(time.Millisecond)
	m.fires[f.Seq] = &f
	delete(m.fires, f.Seq-store.MaxFiresKept)
	return f, true, nil
}

// PendingFires returns the unstarted fires whose hold lapsed.
func (s *schedulesSpace) PendingFires(ctx context.Context, now time.Time, limit int) ([]store.FireKey, error) {
	if err := s.closed.check(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []store.FireKey
	for k, m := range s.scheds {
		for seq, f := range m.fires {
			if !f.Started && !f.HeldUntil.After(now) {
				out = append(out, store.FireKey{User: k.User, Schedule: k.ID, Seq: seq})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].User != out[j].User {
			return out[i].User < out[j].User
		}
		if out[i].Schedule != out[j].Schedule {
			return out[i].Schedule < out[j].Schedule
		}
		return out[i].Seq < out[j].Seq
	})
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// TakeFire takes a pending fire whose hold lapsed.
func (s *schedulesSpace) TakeFire(ctx context.Context, key store.FireKey, now time.Time, lease time.Duration) (store.FireRecord, bool, error) {
	if err := s.closed.check(); err != nil {
		return store.FireRecord{}, false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.fire(key)
	if f == nil || f.Started || f.HeldUntil.After(now) {
		return store.FireRecord{}, false, nil
	}
	f.HeldUntil = now.Add(lease).Truncate(time.Millisecond)
	return *f, true, nil
}

// FireStarted records that a fire started (or could not).
func (s *schedulesSpace) FireStarted(ctx context.Context, key store.FireKey, responseID, failure string) (bool, error) {
	if err := s.closed.check(); err != nil {
		return false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.fire(key)
	if f == nil {
		return false, nil
	}
	if !f.Started {
		f.Started, f.Failure = true, failure
		if responseID != "" {
			f.ResponseID = responseID
		}
	}
	return true, nil
}

func (s *schedulesSpace) fire(key store.FireKey) *store.FireRecord {
	m, ok := s.scheds[store.ScheduleKey{User: key.User, ID: key.Schedule}]
	if !ok {
		return nil
	}
	return m.fires[key.Seq]
}

// ListFires returns a page of a schedule's fires, newest first.
func (s *schedulesSpace) ListFires(ctx context.Context, user, id string, before int64, limit int) ([]store.FireRecord, error) {
	if err := s.closed.check(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.scheds[store.ScheduleKey{User: user, ID: id}]
	if !ok {
		return nil, nil
	}
	var out []store.FireRecord
	for seq, f := range m.fires {
		if before < 1 || seq < before {
			out = append(out, *f)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Seq > out[j].Seq })
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}
