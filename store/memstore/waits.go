package memstore

import (
	"context"
	"time"

	"github.com/harnest/harnest/store"
)

// A wait is what a suspended response waits for: a human approval or a
// client tool's output. It is kept with its session, and indexed by its ID
// in the user's index so that POST /approvals/{id} finds it from the ID
// alone. Any replica may answer; ResolveWait changes its status exactly
// once. Wait and index entry expire a minute (waitTombstone) after the
// wait does.

// waitTombstone keeps a resolved or expired wait readable a while, so a
// second answer gets 409 rather than 404.
const waitTombstone = time.Minute

// wait is a stored wait; its ID, session and expiry time are in the
// store.Wait.
type wait struct {
	w       store.Wait
	expires time.Time // when the record itself goes (the tombstone's end)
}

// addWait records a pending wait of the space's session, indexes it and
// queues the space for its expiry. The caller holds the shard's lock.
func (s *Store) addWait(sh *shard, sp *space, user, session string, w *store.Wait) {
	stored := *w
	stored.Session, stored.Status, stored.Output = session, store.WaitPending, nil
	stored.ExpiresAt = time.UnixMilli(w.ExpiresAt.UnixMilli()) // kept to the millisecond, as in Redis
	expires := w.ExpiresAt.Add(waitTombstone)
	if sp.waits == nil {
		sp.waits = map[string]*wait{}
	}
	sp.waits[w.ID] = &wait{w: stored, expires: expires}
	sh.expireAt(sp, expires)
	s.users.addWait(user, w.ID, waitRef{session: session, expires: expires})
}

// liveWait returns the space's wait with that ID unless it expired at now.
func (sp *space) liveWait(id string, now time.Time) *wait {
	if sp == nil {
		return nil
	}
	w := sp.waits[id]
	if w == nil || !now.Before(w.expires) {
		return nil
	}
	return w
}

// GetWait reads one of the user's waits by ID; found is false when the
// user has none with that ID (or it is long gone).
func (s *Store) GetWait(ctx context.Context, user, id string) (store.Wait, bool, error) {
	if err := s.closed.check(); err != nil {
		return store.Wait{}, false, err
	}
	session, ok := s.users.waitSession(user, id, s.now())
	if !ok {
		return store.Wait{}, false, nil
	}
	return s.ReadWait(ctx, user, session, id)
}

// ReadWait reads a wait of a known session (the replica that holds the
// response reads the answer this way).
func (s *Store) ReadWait(ctx context.Context, user, session, id string) (store.Wait, bool, error) {
	if err := s.closed.check(); err != nil {
		return store.Wait{}, false, err
	}
	sh, sp := s.lockSpace(user, session)
	defer sh.mu.Unlock()
	w := sp.liveWait(id, s.now())
	if w == nil {
		return store.Wait{}, false, nil
	}
	return sp.withEpoch(w.w), true, nil
}

// withEpoch is a copy of the wait with its run's current epoch. The
// caller holds the shard's lock.
func (sp *space) withEpoch(w store.Wait) store.Wait {
	w.Epoch = 1
	if r := sp.responses.get(w.ResponseID); r != nil {
		w.Epoch = max(r.epoch, 1)
	}
	return w
}

// ResolveWait answers a pending wait of the given kind exactly once: status
// becomes approved, denied or submitted (with a copy of output), whether
// or not a replica holds the response. It fails with store.ErrWaitResolved
// (and the current status; a wait past its ExpiresAt at now becomes
// expired) or store.ErrWaitUnavailable (the response is over: its receipt
// is final or gone); the returned wait has an empty ID when the user has
// no such wait of that kind.
func (s *Store) ResolveWait(ctx context.Context, user, id, kind, status string, output []byte, now time.Time) (store.Wait, string, error) {
	if err := s.closed.check(); err != nil {
		return store.Wait{}, "", err
	}
	session, ok := s.users.waitSession(user, id, s.now())
	if !ok {
		return store.Wait{}, "", nil
	}
	sh, sp := s.lockSpace(user, session)
	defer sh.mu.Unlock()
	stored := sp.liveWait(id, s.now())
	if stored == nil || stored.w.Kind != kind {
		return store.Wait{}, "", nil
	}
	w := sp.withEpoch(stored.w)
	r := sp.responses.get(w.ResponseID)
	live := false
	if r != nil {
		_, live = r.liveReceipt(s.now())
	}
	switch {
	case w.Status != store.WaitPending:
		return w, w.Status, store.ErrWaitResolved
	case w.ExpiresAt.UnixMilli() <= now.UnixMilli():
		stored.w.Status = store.WaitExpired
		return w, store.WaitExpired, store.ErrWaitResolved
	case r == nil || !live || r.final:
		return w, w.Status, store.ErrWaitUnavailable
	}
	stored.w.Status = status
	if len(output) > 0 {
		stored.w.Output = copyBytes(output)
	}
	return sp.withEpoch(stored.w), status, nil
}

// FinishWait sets a wait's status when the response ends it (expired or
// cancelled), unless it was already answered; store.ErrFenced when the
// run's epoch is not epoch.
func (s *Store) FinishWait(ctx context.Context, user, session, responseID, id, status string, epoch int) error {
	if err := s.closed.check(); err != nil {
		return err
	}
	sh, sp, r := s.lockResponse(user, session, responseID)
	defer sh.mu.Unlock()
	if r.fenced(epoch) {
		return store.ErrFenced
	}
	if w := sp.liveWait(id, s.now()); w != nil && w.w.Status == store.WaitPending && w.w.ResponseID == responseID {
		w.w.Status = status
	}
	return nil
}
