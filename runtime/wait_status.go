package runtime

import (
	"context"
)

// WaitStatus reads what became of one of the user's waits in a session (an
// approval or a client tool request): "pending" while it waits for its
// answer, then approved, denied, submitted, expired or cancelled. A door
// that replays a response's log asks it to tell a wait the client must
// still answer from one answered since, whose continuation may not be
// logged yet. found is false when the user has no such wait.
func (s *Service) WaitStatus(ctx context.Context, p Principal, sessionID, id string) (status string, found bool, err error) {
	if !validSessionID(sessionID) {
		return "", false, nil
	}
	w, found, err := s.store.ReadWait(ctx, p.UserID, sessionID, id)
	if err != nil {
		return "", false, s.storeFailure(err)
	}
	if !found {
		return "", false, nil
	}
	return w.Status, true, nil
}
