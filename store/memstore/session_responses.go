package memstore

import "context"

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
