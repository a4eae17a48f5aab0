package runtime

import (
	"context"
	"encoding/json"

	"github.com/harnest/harnest/store"
)

// Session statuses (SessionWithStatus.Status).
const (
	// SessionIdle: no response holds the session.
	SessionIdle = "idle"
	// SessionRunning: a response holds the session and runs.
	SessionRunning = "running"
	// SessionWaiting: the response that holds the session waits for an
	// approval or a client tool (WaitingOn says which).
	SessionWaiting = "waiting"
	// SessionQueued: responses wait for their turn on the session (queue.go)
	// and none holds it yet: the queue's head is about to start.
	SessionQueued = "queued"
)

// SessionWithStatus is a session with what it is doing now: the body of
// GET /sessions/{id}.
type SessionWithStatus struct {
	Session
	// Status is idle, running, waiting or queued.
	Status string `json:"status"`
	// ActiveResponseID is the response that holds the session (running or
	// waiting); null when idle.
	ActiveResponseID *string `json:"activeResponseId"`
	// WaitingOn is what the active response waits for; null unless
	// waiting.
	WaitingOn *WaitingOn `json:"waitingOn"`
	// Queued is how many responses wait for their turn (queue.go).
	Queued int `json:"queued"`
}

// WaitingOn is the wait a waiting session's response is suspended on.
type WaitingOn struct {
	Kind string `json:"kind"` // approval or client_tool
	ID   string `json:"id"`
}

// SessionStatus reads one of the user's sessions with its status.
func (s *Service) SessionStatus(ctx context.Context, p Principal, id string) (SessionWithStatus, error) {
	sess, err := s.GetSession(ctx, p, id)
	if err != nil {
		return SessionWithStatus{}, err
	}
	out := SessionWithStatus{Session: sess, Status: SessionIdle}
	active, err := s.store.ActiveResponse(ctx, p.UserID, id)
	if err != nil {
		return SessionWithStatus{}, s.storeFailure(err)
	}
	if _, out.Queued, err = s.store.QueuedResponses(ctx, p.UserID, id, 0); err != nil {
		return SessionWithStatus{}, s.storeFailure(err)
	}
	if active == "" {
		if out.Queued > 0 {
			out.Status = SessionQueued
		}
		return out, nil
	}
	receipt, found, err := s.store.Receipt(ctx, p.UserID, id, active)
	if err != nil {
		return SessionWithStatus{}, s.storeFailure(err)
	}
	if found && store.IsFinalReceipt(receipt) {
		if out.Queued > 0 {
			out.Status = SessionQueued
		}
		return out, nil // it ended between the two reads: the lease is going
	}
	out.Status, out.ActiveResponseID = SessionRunning, &active
	var env EnvelopeBody
	if found && json.Unmarshal(receipt, &env) == nil && env.Status == StatusRequiresAction && env.RequiredAction != nil {
		out.Status = SessionWaiting
		out.WaitingOn = &WaitingOn{Kind: waitKind(env.RequiredAction.Type), ID: env.RequiredAction.ID}
	}
	return out, nil
}

// waitKind names a required action's wait as a session status does.
func waitKind(actionType string) string {
	if actionType == "human_approval" {
		return "approval"
	}
	return actionType
}
