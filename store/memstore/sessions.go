package memstore

import (
	"context"
	"encoding/json"

	"github.com/harnest/harnest/store"
)

// CreateSession stores a new session with a copy of its initial state. It
// returns ErrSessionExists when the user already has a session with that
// ID.
func (s *Store) CreateSession(ctx context.Context, user, id string, state map[string]json.RawMessage, now string) error {
	if err := s.closed.check(); err != nil {
		return err
	}
	sh, sp := s.lockSpaceForWrite(user, id)
	defer sh.mu.Unlock()
	if sp.hasSession {
		return store.ErrSessionExists
	}
	sp.session = sessionData{createdAt: now, updatedAt: now, state: copyState(state, nil)}
	sp.hasSession = true
	s.users.addSession(user, id)
	return nil
}

// GetSession reads a session; found is false when the user has none with
// that ID. The state map is the caller's; its values are the stored ones.
func (s *Store) GetSession(ctx context.Context, user, id string) (store.Session, bool, error) {
	return s.session(user, id, nil)
}

// SessionExists reports whether the user has the session.
func (s *Store) SessionExists(ctx context.Context, user, session string) (bool, error) {
	if err := s.closed.check(); err != nil {
		return false, err
	}
	sh, sp := s.lockSpace(user, session)
	defer sh.mu.Unlock()
	return sp != nil && sp.hasSession, nil
}

// ListSessions returns up to limit of the user's sessions whose IDs sort
// after the given one (from the start when after is empty), in ID order:
// a keyset page of the user's B-tree index, O(log N + limit).
func (s *Store) ListSessions(ctx context.Context, user, after string, limit int) ([]store.Session, error) {
	if err := s.closed.check(); err != nil {
		return nil, err
	}
	ids := s.users.sessionsAfter(user, after, limit)
	if len(ids) == 0 {
		return nil, nil
	}
	out := make([]store.Session, 0, len(ids))
	for _, id := range ids {
		if sess, found, _ := s.GetSession(ctx, user, id); found { // deleted meanwhile: skipped
			out = append(out, sess)
		}
	}
	return out, nil
}

// PatchState merges delta into the session state, key by key (a shallow
// merge: each key replaces the whole value), and returns the session.
func (s *Store) PatchState(ctx context.Context, user, id string, delta map[string]json.RawMessage, now string) (store.Session, bool, error) {
	return s.session(user, id, func(d *sessionData) {
		d.state = copyState(delta, d.state)
		d.updatedAt = now
	})
}

// session reads the user's session after change (when not nil) has
// changed it, under its shard's lock; found is false when the user has
// none with that ID.
func (s *Store) session(user, id string, change func(*sessionData)) (store.Session, bool, error) {
	if err := s.closed.check(); err != nil {
		return store.Session{}, false, err
	}
	sh, sp := s.lockSpace(user, id)
	defer sh.mu.Unlock()
	if sp == nil || !sp.hasSession {
		return store.Session{}, false, nil
	}
	if change != nil {
		change(&sp.session)
	}
	return sessionOf(user, id, &sp.session), true, nil
}

// DeleteSession removes a session with its state, transcript, responses
// (receipts and event logs), waits and assets, and gives the assets' bytes
// back to the user's quota. It returns ErrSessionBusy while a response
// holds the session.
func (s *Store) DeleteSession(ctx context.Context, user, id string) (bool, error) {
	if err := s.closed.check(); err != nil {
		return false, err
	}
	sh, sp := s.lockSpace(user, id)
	defer sh.mu.Unlock()
	if sp == nil || !sp.hasSession {
		return false, nil
	}
	if sp.lease.heldBy(s.now()) != "" {
		return true, store.ErrSessionBusy
	}
	waits := make([]string, 0, len(sp.waits))
	for wid := range sp.waits {
		waits = append(waits, wid)
	}
	s.users.removeWaits(user, id, waits)
	s.users.removeSession(user, id, sp.assetBytes)
	s.dropSpace(sh, spaceKey{user, id})
	return true, nil
}

// copyState merges copies of the values of src into dst (made when nil
// and src is not empty) and returns it.
func copyState(src, dst map[string]json.RawMessage) map[string]json.RawMessage {
	if len(src) == 0 {
		return dst // nothing to merge: an empty state stays nil, not an empty map
	}
	if dst == nil {
		dst = make(map[string]json.RawMessage, len(src))
	}
	for k, v := range src {
		dst[k] = json.RawMessage(copyBytes(v))
	}
	return dst
}

// stateOf returns a new map holding the stored state values (an empty map,
// never nil, when the session has none).
func stateOf(d *sessionData) map[string]json.RawMessage {
	out := make(map[string]json.RawMessage, len(d.state))
	for k, v := range d.state {
		out[k] = v
	}
	return out
}

func sessionOf(user, id string, d *sessionData) store.Session {
	return store.Session{ID: id, UserID: user, State: stateOf(d), CreatedAt: d.createdAt, UpdatedAt: d.updatedAt}
}
