package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"time"
)

// storedRun is a turn run here from the request stored with its run:
// a claimed turn run again (claim.go's resume) or a queued response that
// took its session (queue.go's runQueued).
type storedRun struct {
	user, session, responseID string
	request                   []byte // the stored rerunRequest
	webhook                   string // the stored webhook ("": none)
	epoch, attempt            int
	lastSequence              int // the sequence of the run's last logged event
}

// prepareStored makes the Response of a stored run with its turn, tracked
// and holding its admission place; the caller adds what its kind of run
// needs (steers, journal, its first events) and runs it. Nothing is
// written to the store here.
func (s *Service) prepareStored(ctx context.Context, run storedRun) (*Response, error) {
	var req rerunRequest
	if run.request == nil || json.Unmarshal(run.request, &req) != nil {
		return nil, errors.New("runtime: the run has no stored request to run")
	}
	sess, found, err := s.store.GetSession(ctx, run.user, run.session)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, errSessionNotFound
	}
	request := ResponseRequest{Input: req.Input, Parts: req.Parts, Metadata: req.Metadata, Background: true,
		Transport: req.Transport, ClientTools: req.ClientTools, Context: req.Context, Message: req.Message}
	content, err := s.resolveContent(ctx, Principal{UserID: run.user}, request)
	if err != nil {
		return nil, err
	}
	metadata := req.Metadata
	if len(metadata) == 0 || string(metadata) == "null" {
		metadata = emptyObject
	}
	r := &Response{
		ID: run.responseID, SessionID: run.session, Background: true, svc: s, metadata: metadata,
		done: make(chan struct{}), boundary: make(chan struct{}), watch: turnWatch{transport: req.Transport, started: time.Now()},
		webhook: storedWebhook(run.webhook), epoch: run.epoch, rerunRequest: run.request,
	}
	r.seq = run.lastSequence + 1
	r.inStore.Store(true)
	r.ctx, r.cancel = context.WithCancelCause(context.WithoutCancel(ctx))
	place, err := s.admission.reserve(run.user)
	if err != nil {
		r.cancel(nil)
		return nil, err
	}
	if !s.track(r) {
		place.release()
		r.cancel(nil)
		return nil, errShuttingDown
	}
	r.admitted = place
	state := sess.State
	if state == nil {
		state = map[string]json.RawMessage{}
	}
	user, session := run.user, run.session
	r.turn = Turn{
		ResponseID: r.ID, SessionID: session, UserID: user, Attempt: run.attempt,
		Input: req.Input, Content: content, State: state, Metadata: metadata,
		History: func(ctx context.Context, limit int) ([]Message, error) {
			return s.history(ctx, user, session, limit)
		},
		Compaction:  s.compaction(user, session, r.ID),
		ClientTools: req.ClientTools, Context: req.Context, Message: req.Message,
		RequestApproval:   r.requestApproval,
		RequestClientTool: r.requestClientTool,
	}
	r.steers = newSteers(r, true) // it takes the steers kept for it (earlier attempts', or the turn's before it)
	r.turn.Steers = r.steers
	return r, nil
}
