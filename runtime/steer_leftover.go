package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/harnest/harnest/store"
)

// Steers a turn never took. A steer answered 202 is kept in the store
// until the turn takes it (steer.go); when the turn ends first (it
// answered without another step, failed, was cancelled, or its replica
// was lost and the sweeper failed it), the steer is not dropped: it
// becomes the session's next message, a new response queued at the head
// of the session's queue, whose ID is SteerResponseID(steer ID) and whose
// metadata names the steer and the response it was handed to
// ({"steerId": ..., "steeredResponseId": ...}). The caller of the steer
// finds it so: GET /sessions/{session}/responses/{SteerResponseID(id)}.
//
// It is queued right after the turn's final commit, not in the same store
// operation: after the commit no steer can be kept for the turn any more
// (AppendSteer refuses a final response), so one take then finds every
// steer it never took, with no race against a steer kept meanwhile; the
// commit (the store's largest script) stays as it is. It is queued at the
// head even though the session is free by then (store.Enqueue.EvenIdle):
// a queue goes first, so only a message that began in the one round trip
// between the commit and the queuing runs before it. The steers are taken
// (removed, fenced by the run's epoch) and then queued: a crash between
// the two loses them, a window of one store round trip. The final commit
// says whether any are left (store.Commit.SteersLeft), so only a turn
// that ends with steers it never took pays the take's round trip.

// SteerResponseID is the ID of the response a steer becomes when the turn
// it was handed to ended before taking it: "resp_" and the steer ID's hex.
func SteerResponseID(steerID string) string {
	return "resp_" + strings.TrimPrefix(steerID, "steer_")
}

// queueLeftoverSteers queues as the session's next messages the steers
// kept for the response that its attempt epoch never took, once its final
// receipt is committed, and starts the queue's head. It reports whether it
// queued any.
func (s *Service) queueLeftoverSteers(ctx context.Context, user, session, responseID string, epoch int) bool {
	if !s.TakesSteers() {
		return false
	}
	kept, err := s.store.TakeSteers(ctx, user, session, responseID, epoch)
	if err != nil {
		if !errors.Is(err, store.ErrFenced) { // fenced: the claimer takes them
			s.log.Warn("cannot take the steers a turn never took; they stay kept", "responseId", responseID, "err", err)
		}
		return false
	}
	queued := false
	for i := len(kept) - 1; i >= 0; i-- { // each at the head: the first kept ends first in line
		m, ok := decodeSteer(kept[i])
		if !ok {
			continue
		}
		if err := s.queueSteer(ctx, user, session, responseID, m); err != nil {
			s.log.Error("cannot queue a steer the turn never took; it is lost", "responseId", responseID, "steerId", m.ID, "err", err)
			continue
		}
		queued = true
	}
	if queued {
		go s.startNextQueued(user, session)
	}
	return queued
}

// queueSteer queues a steer as a new response at the head of the session's
// queue, from the replica that ends the turn it was handed to.
func (s *Service) queueSteer(ctx context.Context, user, session, steered string, m steerMessage) error {
	id := SteerResponseID(m.ID)
	metadata, _ := json.Marshal(map[string]string{"steerId": m.ID, "steeredResponseId": steered})
	req := ResponseRequest{Input: m.Input, Parts: m.Parts, Metadata: metadata, Background: true, SessionID: session}
	env := Envelope{ID: id, SessionID: session, EnvelopeBody: EnvelopeBody{Status: StatusQueued, Output: []OutputItem{}, Metadata: metadata}}
	receipt, _ := env.encode()
	created := Event{Type: EventCreated, ResponseID: id, SessionID: session, Metadata: metadata}
	createdJSON, _ := created.encode()
	return s.store.QueueResponse(ctx, store.Enqueue{User: user, Session: session, ResponseID: id,
		Receipt: receipt, Request: encodeRerun(req, user, false),
		Events: []store.Event{{Sequence: 0, Type: EventCreated, JSON: createdJSON}}, Front: true, EvenIdle: true, Now: s.timestamp()})
}

// queueLeftovers is queueLeftoverSteers for a turn that ended here, its
// final receipt committed.
func (r *Response) queueLeftovers() {
	if r.steers == nil || !r.inStore.Load() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), recordTimeout)
	defer cancel()
	r.svc.queueLeftoverSteers(ctx, r.turn.UserID, r.SessionID, r.ID, r.epoch)
}
