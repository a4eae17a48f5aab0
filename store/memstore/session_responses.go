package memstore

import (
	"context"

	"github.com/harnest/harnest/store"
)

// ActiveResponse returns the response that holds the session's lease now
// ("" when none).
func (s *Store) ActiveResponse(ctx context.Context, user, session string) (string, error) {
	if err := s.closed.check(); err != nil {
		return "", err
	}
	sh, sp := s.lockSpace(user, session)
	defer sh.mu.Unlock()
	if sp == nil {
		return "", nil
	}
	return sp.lease.heldBy(s.now()), nil
}

// addToOrder puts a response that begins at the end of the session's
// order, once.
func (sp *space) addToOrder(id string) {
	if n := len(sp.order); n > 0 && sp.order[n-1] == id {
		return
	}
	if sp.responses.get(id) != nil {
		return // written before: already in it
	}
	sp.order = append(sp.order, id)
}

// SessionResponses returns up to limit of the session's responses, newest
// first, below sequence before (before < 1: from the newest). The order
// is a slice by sequence: O(limit).
func (s *Store) SessionResponses(ctx context.Context, user, session string, before int64, limit int) ([]store.SessionResponse, error) {
	if err := s.closed.check(); err != nil {
		return nil, err
	}
	sh, sp := s.lockSpace(user, session)
	defer sh.mu.Unlock()
	if sp == nil || !sp.hasSession || limit < 1 {
		return nil, nil
	}
	top := int64(len(sp.order))
	if before >= 1 && before-1 < top {
		top = before - 1
	}
	out := make([]store.SessionResponse, 0, min(int64(limit), top))
	for seq := top; seq >= 1 && len(out) < limit; seq-- {
		out = append(out, store.SessionResponse{ID: sp.order[seq-1], Seq: seq})
	}
	return out, nil
}
