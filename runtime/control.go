package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/harnest/harnest/store"
)

// Replicas talk through one Redis pub/sub control channel: whoever takes an
// answer to a wait, or a cancel, publishes it; the replica that holds the
// response acts on it. Messages are rare (decisions, cancels), so every
// replica simply receives every one and ignores those for others.

type control struct {
	Op         string          `json:"op"` // "resolve" or "cancel"
	ResponseID string          `json:"responseId"`
	User       string          `json:"user"`
	Session    string          `json:"session"`
	WaitID     string          `json:"waitId,omitempty"`
	Replica    string          `json:"replica,omitempty"` // "handoff": the replica that left (handoff.go)
	Door       string          `json:"door,omitempty"`    // "door": the door (door_control.go)
	Payload    json.RawMessage `json:"payload,omitempty"` // "door": its message
}

func (s *Service) sendControl(ctx context.Context, c control) error {
	b, _ := json.Marshal(c)
	return s.store.PublishControl(ctx, string(b))
}

// sendControlTo sends a control message to one replica; gone reports that
// the store knows no such replica listens any more.
func (s *Service) sendControlTo(ctx context.Context, replica string, c control) (gone bool, err error) {
	b, _ := json.Marshal(c)
	return s.store.SendControl(ctx, replica, string(b))
}

// onControl runs on the hub's goroutine for every control message.
func (s *Service) onControl(payload string) {
	var c control
	if json.Unmarshal([]byte(payload), &c) != nil {
		return
	}
	if c.Op == opHandOff {
		s.onHandOff(c.Replica)
		return
	}
	if c.Op == opDoor {
		s.onDoorMessage(c) // door_control.go
		return
	}
	if s.onBusyControl(c) { // busy.go
		return
	}
	r := s.local(c.ResponseID)
	if r == nil || r.turn.UserID != c.User || r.SessionID != c.Session {
		return // another replica's response
	}
	switch c.Op {
	case "cancel":
		r.Cancel()
	case opSteer:
		s.onSteer(r)
	case "resolve":
		go func() { // read the answer off the hub's goroutine
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			w, found, err := s.store.ReadWait(ctx, c.User, c.Session, c.WaitID)
			if err != nil || !found {
				s.log.Warn("cannot read an answered wait", "responseId", c.ResponseID, "waitId", c.WaitID, "err", err)
				return
			}
			r.deliver(w)
		}()
	}
}

// local returns the response this replica runs, if any.
func (s *Service) local(responseID string) *Response {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.byID[responseID]
}

// CancelResponse cancels one of the user's responses, wherever it runs, and
// returns its final receipt. Cancelling a finished response returns its
// receipt unchanged.
func (s *Service) CancelResponse(ctx context.Context, p Principal, sessionID, responseID string) ([]byte, error) {
	receipt, err := s.GetResponse(ctx, p, sessionID, responseID)
	if err != nil {
		return nil, err
	}
	if isTerminal(receipt) {
		return receipt, nil
	}
	if body, ok, err := s.cancelQueued(ctx, p, sessionID, responseID, receipt); ok || err != nil { // queue.go
		return body, err
	}
	r := s.local(responseID)
	if r == nil || r.turn.UserID != p.UserID || r.SessionID != sessionID {
		// A waiting turn whose replica is gone is ended here (waits_parked_cancel.go).
		if body, ended, err := s.endWaitingElsewhere(ctx, p.UserID, sessionID, responseID, receipt, "cancel", errCancelled); ended || err != nil {
			return body, err
		}
	}
	if r != nil && r.turn.UserID == p.UserID && r.SessionID == sessionID {
		r.Cancel()
	} else if err := s.sendControl(ctx, control{Op: "cancel", ResponseID: responseID, User: p.UserID, Session: sessionID}); err != nil {
		return nil, s.storeFailure(err)
	}
	// Wait for the holder to record the end; a holder that died is failed
	// by the sweeper once its lease lapses.
	ctx, cancel := context.WithTimeout(ctx, s.lease+5*time.Second)
	defer cancel()
	err = s.Follow(ctx, p, sessionID, responseID, -1, func(Frame) (bool, error) { return false, nil })
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return nil, err
	}
	return s.GetResponse(context.WithoutCancel(ctx), p, sessionID, responseID)
}

// isTerminal reports whether a receipt is final.
func isTerminal(receipt []byte) bool { return store.IsFinalReceipt(receipt) }

// envelopeOf decodes a receipt.
func envelopeOf(receipt []byte) (Envelope, bool) {
	var env Envelope
	err := json.Unmarshal(receipt, &env)
	return env, err == nil
}

func statusOf(receipt []byte) string {
	var env struct {
		Status string `json:"status"`
	}
	_ = json.Unmarshal(receipt, &env)
	return env.Status
}
