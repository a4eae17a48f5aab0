package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/harnest/harnest/store"
)

// Steering: a message handed to a running turn (POST
// /responses/{id}/steer, the /live frame response.steer), from any
// replica. The steer is kept in the store under the response
// (store.AppendSteer, refused atomically when the response is final or
// queued), and the replica that runs the turn is woken (here, or by a
// control message): the backend takes it at its next step, the model
// backend before its next model call, a worker as a steer line. Taking it
// emits response.steered, and the transcript keeps the message where it
// was taken (between the answer's text before it and after it). A replica
// that claims the run takes what is left. A steer the turn ends before
// taking is not dropped: it becomes the session's next message, response
// SteerResponseID(steer ID) (steer_leftover.go).

// Steerable is implemented by an agent whose turns take steers through
// Turn.Steers. An agent that does not implement it, or whose TakesSteers
// is false, refuses every steer (409 steer_unsupported).
type Steerable interface {
	TakesSteers() bool
}

// SteerRequest is a message for a running turn: text, or content parts
// as in a ResponseRequest (media naming assets of the response's session).
type SteerRequest struct {
	Input string
	Parts []InputPart
}

// SteerAccepted is the answer to a steer handed to a running turn: it is
// kept in the store and will be taken at the turn's next step
// (response.steered names its ID), or, when the turn ends first, becomes
// the session's next message, response SteerResponseID(ID).
type SteerAccepted struct {
	ID         string `json:"id"`
	Object     string `json:"object"` // "response.steer"
	ResponseID string `json:"responseId"`
	SessionID  string `json:"sessionId"`
	Status     string `json:"status"` // "accepted"
}

// Steer is one message a backend takes from Turn.Steers.
type Steer struct {
	ID string
	// Input is the text: the text parts joined with newlines.
	Input string
	// Content is the message as parts (one text part for a text message).
	Content []ContentInput
}

// SteerInfo is the payload of response.steered: the message taken, as
// the transcript keeps it (Content: a JSON string, or parts with media as
// placeholders).
type SteerInfo struct {
	ID      string          `json:"id"`
	Input   string          `json:"input"`
	Content json.RawMessage `json:"content"`
}

// The codes of a refused steer (409).
const (
	CodeSteerUnsupported = "steer_unsupported"
	CodeResponseFinal    = "response_final"
	CodeResponseQueued   = "response_queued"
	CodeResponseWaiting  = "response_waiting"
)

// statusQueued is the receipt status of a response that waits for its
// turn on a busy session.
const statusQueued = "queued"

// TakesSteers reports whether the service's agent takes steers.
func (s *Service) TakesSteers() bool {
	st, ok := s.agent.(Steerable)
	return ok && st.TakesSteers()
}

// SteerResponse hands a message to one of the user's running responses,
// wherever it runs. It is refused (ErrConflict) when the agent takes no
// steers, the response is final, queued or waiting for an answer;
// nothing is kept then.
func (s *Service) SteerResponse(ctx context.Context, p Principal, sessionID, responseID string, req SteerRequest) (SteerAccepted, error) {
	if strings.TrimSpace(req.Input) == "" && len(req.Parts) == 0 {
		return SteerAccepted{}, Errorf(ErrInvalid, "invalid_request", "input must be a non-blank string or an array of content parts")
	}
	if len(req.Input) > s.maxIn {
		return SteerAccepted{}, Errorf(ErrTooLarge, "input_too_large", "Input exceeds %s", FormatBytes(int64(s.maxIn)))
	}
	receipt, err := s.GetResponse(ctx, p, sessionID, responseID)
	if err != nil {
		return SteerAccepted{}, err
	}
	if err := steerable(s, receipt, responseID); err != nil {
		return SteerAccepted{}, err
	}
	if _, err := s.resolveContent(ctx, p, ResponseRequest{Input: req.Input, Parts: req.Parts, SessionID: sessionID}); err != nil {
		return SteerAccepted{}, err
	}
	m := steerMessage{ID: newID("steer_"), Input: req.Input, Parts: req.Parts}
	payload, _ := json.Marshal(m)
	switch err := s.store.AppendSteer(ctx, p.UserID, sessionID, responseID, payload); {
	case errors.Is(err, store.ErrReceiptFinal):
		return SteerAccepted{}, Errorf(ErrConflict, CodeResponseFinal, "Response %s is over; send the message as a new response", responseID)
	case errors.Is(err, store.ErrResponseQueued):
		return SteerAccepted{}, Errorf(ErrConflict, CodeResponseQueued, "Response %s waits for its turn and is not running yet; steer it once it runs, or cancel it", responseID)
	case err != nil:
		return SteerAccepted{}, s.storeFailure(err)
	}
	// The steer is kept: wake the turn where it runs. A wake-up that gets
	// lost only delays it: the turn's end takes what it never took.
	if r := s.local(responseID); r != nil && r.turn.UserID == p.UserID && r.SessionID == sessionID {
		r.steers.wake()
	} else if err := s.sendControl(ctx, control{Op: opSteer, ResponseID: responseID, User: p.UserID, Session: sessionID}); err != nil {
		s.log.Warn("cannot wake the turn of a kept steer; it is taken at the turn's end", "responseId", responseID, "steerId", m.ID, "err", err)
	}
	return SteerAccepted{ID: m.ID, Object: "response.steer", ResponseID: responseID, SessionID: sessionID, Status: "accepted"}, nil
}

// steerable refuses a steer the response cannot take now.
func steerable(s *Service, receipt []byte, responseID string) error {
	if !s.TakesSteers() {
		return Errorf(ErrConflict, CodeSteerUnsupported, "This agent's backend cannot take a message during a turn; send it as the next response")
	}
	if isTerminal(receipt) {
		return Errorf(ErrConflict, CodeResponseFinal, "Response %s is over (%s); send the message as a new response", responseID, statusOf(receipt))
	}
	switch statusOf(receipt) {
	case statusQueued:
		return Errorf(ErrConflict, CodeResponseQueued, "Response %s waits for its turn and is not running yet; steer it once it runs, or cancel it", responseID)
	case StatusRequiresAction:
		return Errorf(ErrConflict, CodeResponseWaiting, "Response %s waits for an approval or a client tool; answer it first, then steer", responseID)
	}
	return nil
}

// steerMessage is a steer as the store keeps it: the request, resolved
// when the turn takes it.
type steerMessage struct {
	ID    string      `json:"id"`
	Input string      `json:"input"`
	Parts []InputPart `json:"parts,omitempty"`
}

// opSteer is the control message that wakes the replica that runs the
// response: a steer is kept for it.
const opSteer = "steer"

// onSteer wakes a turn this replica runs: another replica kept a steer
// for it.
func (s *Service) onSteer(r *Response) {
	r.steers.wake()
}
