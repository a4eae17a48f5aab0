package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/harnest/harnest/store"
)

// Default expiries of waits, as in the reference.
const (
	DefaultApprovalTTL   = 900 * time.Second
	DefaultClientToolTTL = 300 * time.Second
)

// waiter is the agent's side of a suspension: the answer arrives on ch,
// from a control message (any replica may take the answer) or the expiry.
type waiter struct {
	id string
	ch chan store.Wait
}

// requestApproval implements Turn.RequestApproval.
func (r *Response) requestApproval(ctx context.Context, req ApprovalRequest) error {
	s := r.svc
	id := r.waitID("approval_", store.WaitApproval, r.ID)
	expires := s.now().Add(s.approvalTTL)
	w, replayed, err := r.replayWait(ctx, id, &expires)
	if err != nil {
		return err
	}
	if !replayed {
		info := &ApprovalInfo{ID: id, CallID: r.ID, Action: req.Action, Message: req.Message, Arguments: req.Arguments, ExpiresAt: timestamp(expires)}
		action := &RequiredAction{Type: "human_approval", ID: id, CallID: r.ID, Action: req.Action, Message: req.Message, Arguments: req.Arguments, ExpiresAt: info.ExpiresAt}
		if w, err = r.suspend(ctx, Event{Type: EventApproval, Approval: info}, action, store.WaitApproval, expires); err != nil {
			return err
		}
	}
	r.mu.Lock()
	r.resumedBy.approval = id
	r.mu.Unlock()
	switch w.Status {
	case store.WaitApproved:
		return nil
	case store.WaitExpired:
		return ErrApprovalExpired
	}
	return ErrApprovalDenied
}

// requestClientTool implements Turn.RequestClientTool.
func (r *Response) requestClientTool(ctx context.Context, req ClientToolRequest) (json.RawMessage, error) {
	s := r.svc
	args := req.Arguments
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	callID := req.CallID
	if callID == "" {
		callID = r.ID
	}
	id := r.waitID("client_tool_", store.WaitClientTool, callID)
	expires := s.now().Add(s.clientToolTTL)
	w, replayed, err := r.replayWait(ctx, id, &expires)
	if err != nil {
		return nil, err
	}
	if !replayed {
		info := &ClientToolInfo{ID: id, CallID: callID, Name: req.Name, Arguments: args, ExpiresAt: timestamp(expires)}
		action := &RequiredAction{Type: "client_tool", ID: id, CallID: callID, Name: req.Name, Arguments: args, ExpiresAt: info.ExpiresAt}
		if w, err = r.suspend(ctx, Event{Type: EventClientTool, ClientTool: info}, action, store.WaitClientTool, expires); err != nil {
			return nil, err
		}
	}
	r.mu.Lock()
	r.resumedBy.clientTool = id
	r.mu.Unlock()
	if w.Status != store.WaitDone {
		return nil, ErrClientToolFailed
	}
	return w.Output, nil
}

// suspend announces a wait, records the requires_action receipt, gives back
// the gate and stops the deadline, then waits for the answer, the expiry or
// the end of the response. It resumes the segment (gate, fresh deadline,
// in_progress receipt) before returning the answer.
func (r *Response) suspend(ctx context.Context, announce Event, action *RequiredAction, kind string, expires time.Time) (store.Wait, error) {
	s := r.svc
	w := &waiter{id: action.ID, ch: make(chan store.Wait, 1)}
	r.mu.Lock()
	if r.waiter != nil {
		r.mu.Unlock()
		return store.Wait{}, Errorf(ErrConflict, "already_waiting", "the agent is already waiting for %s", r.waiter.id)
	}
	r.waiter = w
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.waiter = nil
		r.mu.Unlock()
	}()

	if err := r.emit(announce); err != nil {
		return store.Wait{}, err
	}
	env := r.envelope(StatusRequiresAction)
	env.Metadata = json.RawMessage("{}")
	env.RequiredAction = action
	completed, body, err := completedWithReceipt(&env)
	if err != nil { // raw JSON of the envelope that cannot be encoded
		completed = Event{Type: EventCompleted, Envelope: &env}
		body, _ = env.encode()
	}
	if err := r.emit(completed); err != nil {
		return store.Wait{}, err
	}
	r.mu.Lock()
	after := r.seq - 1
	r.mu.Unlock()
	err = r.commit(ctx, &store.Commit{
		User: r.turn.UserID, Session: r.SessionID, ResponseID: r.ID, Receipt: body, Now: s.timestamp(),
		Wait:    &store.Wait{ID: action.ID, Kind: kind, ResponseID: r.ID, ExpiresAt: expires, AfterSequence: after, Replica: s.replica},
		Replica: s.replica,
	})
	if err != nil {
		return store.Wait{}, err
	}
	r.leaveSegment()
	r.detachStream()
	r.reachBoundary(Outcome{Envelope: env, Body: body})

	answer, err := r.awaitAnswer(ctx, w, expires)
	if err != nil {
		return store.Wait{}, err
	}
	if err := r.resumeSegment(ctx); err != nil {
		return store.Wait{}, err
	}
	return answer, nil
}

// awaitAnswer waits for the wait's answer, its expiry, or the end of the
// segment's context.
func (r *Response) awaitAnswer(ctx context.Context, w *waiter, expires time.Time) (store.Wait, error) {
	s := r.svc
	timer := time.NewTimer(time.Until(expires))
	defer timer.Stop()
	select {
	case answer := <-w.ch:
		return answer, nil
	case <-timer.C:
		// Expire it, unless an answer won the race.
		bg := context.WithoutCancel(ctx)
		if err := s.store.FinishWait(bg, r.turn.UserID, r.SessionID, r.ID, w.id, store.WaitExpired, r.epoch); errors.Is(err, store.ErrFenced) {
			r.fenced() // another replica continues the turn
			return store.Wait{}, err
		}
		got, _, err := s.store.ReadWait(bg, r.turn.UserID, r.SessionID, w.id)
		if err != nil {
			return store.Wait{}, err
		}
		return got, nil
	case <-ctx.Done():
		// A fenced attempt (another replica continues the turn) leaves
		// the wait to it: FinishWait refuses it.
		_ = s.store.FinishWait(context.WithoutCancel(ctx), r.turn.UserID, r.SessionID, r.ID, w.id, store.WaitCanceled, r.epoch)
		return store.Wait{}, ctx.Err()
	}
}

// resumeSegment takes a run slot with a fresh deadline and records the
// receipt as in_progress again.
func (r *Response) resumeSegment(ctx context.Context) error {
	if err := r.enterSegment(ctx, r.svc.admission.resume(r.turn.UserID)); err != nil {
		return err
	}
	inProgress := r.envelope(StatusInProgress)
	receipt, _ := inProgress.encode()
	if err := r.svc.store.ReplaceReceipt(ctx, r.turn.UserID, r.SessionID, r.ID, r.epoch, receipt); err != nil {
		if errors.Is(err, store.ErrFenced) {
			r.fenced()
		}
		if errors.Is(err, store.ErrReceiptFinal) {
			return errReceiptFinal
		}
		return err
	}
	return nil
}

// deliver hands an answer to the agent when it waits for it here.
func (r *Response) deliver(w store.Wait) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.waiter == nil || r.waiter.id != w.ID {
		return false
	}
	select {
	case r.waiter.ch <- w:
	default:
	}
	return true
}

// errWaitNotFound is the 404 of an unknown (or another user's) wait.
func errWaitNotFound(kind string) *Error {
	if kind == store.WaitClientTool {
		return &Error{Kind: ErrNotFound, Code: "client_tool_not_found", Detail: "Client tool request not found"}
	}
	return &Error{Kind: ErrNotFound, Code: "approval_not_found", Detail: "Approval not found"}
}

// Answer is the result of answering a wait: the response's next boundary.
type Answer struct {
	// Body is the JSON to return: the envelope of the next boundary (or,
	// for a denial that ended the response, {"id": <approvalId>, "status":
	// "denied"}).
	Body []byte
	// Err is set when the next boundary is a failure (timeout, agent
	// failure); Body then holds the failed receipt.
	Err *Error
}

// Resumption says where a response continues after an answer: its events
// after sequence After belong to the resumed segment.
type Resumption struct {
	ResponseID string
	SessionID  string
	After      int
}

// Decide answers an approval: approve resumes the response (on whichever
// replica holds it) and returns its next boundary; deny tells the agent,
// and returns {"id": <approvalId>, "status": "denied"} when that ended the
// response (as it does for most agents), else the next boundary.
func (s *Service) Decide(ctx context.Context, p Principal, approvalID string, approve bool) (Answer, error) {
	if s.approvals != nil && s.approvals.Owns(approvalID) {
		body, err := s.approvals.Decide(ctx, p, approvalID, approve)
		return Answer{Body: body}, err
	}
	res, err := s.AnswerApproval(ctx, p, approvalID, approve)
	if err != nil {
		return Answer{}, err
	}
	if approve {
		return s.NextBoundary(ctx, p, res)
	}
	// Most agents end a denied response (the receipt becomes denied); an
	// agent that goes on without the action (a model told of the denial)
	// reaches another boundary, which is then the answer.
	answer, err := s.NextBoundary(ctx, p, res)
	if err != nil || answer.Err != nil {
		return answer, err
	}
	if env, ok := envelopeOf(answer.Body); ok && env.Status == StatusDenied {
		body, _ := json.Marshal(map[string]string{"id": approvalID, "status": StatusDenied})
		return Answer{Body: body}, nil
	}
	return answer, nil
}

// SubmitClientTool hands a client tool's output to the waiting response and
// returns its next boundary.
func (s *Service) SubmitClientTool(ctx context.Context, p Principal, requestID string, output json.RawMessage) (Answer, error) {
	res, err := s.AnswerClientTool(ctx, p, requestID, output)
	if err != nil {
		return Answer{}, err
	}
	return s.NextBoundary(ctx, p, res)
}

// AnswerApproval records a decision exactly once and tells the replica that
// holds the response, without waiting: transports that stream the resumed
// output (live, AG-UI) follow the response from the returned position.
func (s *Service) AnswerApproval(ctx context.Context, p Principal, approvalID string, approve bool) (Resumption, error) {
	status := store.WaitDenied
	if approve {
		status = store.WaitApproved
	}
	w, err := s.resolve(ctx, p, approvalID, store.WaitApproval, status, nil)
	return Resumption{ResponseID: w.ResponseID, SessionID: w.Session, After: w.AfterSequence}, err
}

// AnswerClientTool records a client tool's output exactly once and tells
// the replica that holds the response, without waiting.
func (s *Service) AnswerClientTool(ctx context.Context, p Principal, requestID string, output json.RawMessage) (Resumption, error) {
	w, err := s.resolve(ctx, p, requestID, store.WaitClientTool, store.WaitDone, output)
	return Resumption{ResponseID: w.ResponseID, SessionID: w.Session, After: w.AfterSequence}, err
}

// resolve records an answer exactly once and tells the replica that holds
// the response.
func (s *Service) resolve(ctx context.Context, p Principal, id, kind, status string, output []byte) (store.Wait, error) {
	w, current, err := s.store.ResolveWait(ctx, p.UserID, id, kind, status, output, s.now())
	switch {
	case errors.Is(err, store.ErrWaitResolved):
		noun := "approval"
		if kind == store.WaitClientTool {
			noun = "client tool request"
		}
		return w, Errorf(ErrConflict, "already_resolved", "%s is already %s", noun, current)
	case errors.Is(err, store.ErrWaitUnavailable):
		return w, errExecutionUnavailable
	case err != nil:
		return w, s.storeFailure(err)
	case w.ID == "":
		return w, errWaitNotFound(kind)
	}
	c := control{Op: "resolve", ResponseID: w.ResponseID, User: p.UserID, Session: w.Session, WaitID: id}
	if w.Replica == "" { // a wait recorded before replicas had their own channel
		if err := s.sendControl(ctx, c); err != nil {
			return w, s.storeFailure(err)
		}
		return w, nil
	}
	gone, err := s.sendControlTo(ctx, w.Replica, c)
	if err != nil {
		return w, s.storeFailure(err)
	}
	if gone {
		// Its replica is gone: this replica claims the run and runs the
		// turn again, which finds the answer stored (waits_durable.go),
		// unless the agent cannot be run again.
		return w, s.continueWait(ctx, p.UserID, w, w.Replica)
	}
	return w, nil
}

var errExecutionUnavailable = &Error{Kind: ErrConflict, Code: "execution_unavailable",
	Detail: "The response waiting for this answer is no longer running (its replica stopped or it was cancelled)"}

// NextBoundary follows a resumed response to its next boundary (completed,
// the next requires_action, or a failure) and returns that receipt.
func (s *Service) NextBoundary(ctx context.Context, p Principal, w Resumption) (Answer, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout+5*time.Second)
	defer cancel()
	failedWith := "" // the error event's text, when the response failed
	err := s.Follow(ctx, p, w.SessionID, w.ResponseID, w.After, func(f Frame) (bool, error) {
		switch f.Type {
		case EventCompleted:
			return true, nil
		case EventError:
			failedWith = errorText(f.JSON)
			return true, nil
		}
		return false, nil
	})
	if err != nil {
		return Answer{}, err
	}
	receipt, err := s.GetResponse(ctx, p, w.SessionID, w.ResponseID)
	if err != nil {
		return Answer{}, err
	}
	var code string
	if env, ok := envelopeOf(receipt); ok && env.Error != nil {
		code = env.Error.Code
	}
	if code == CodeReplicaLost {
		return Answer{}, errExecutionUnavailable // its replica died before it resumed
	}
	if failedWith != "" {
		if code != CodeTimedOut && code != CodeNoOutput {
			code = CodeInvocationFailed // the error event's text says what failed
		}
		return Answer{Body: receipt, Err: failedError(code, failedWith)}, nil
	}
	return Answer{Body: receipt}, nil
}

func errorText(frame []byte) string {
	var e struct {
		Error string `json:"error"`
	}
	_ = json.Unmarshal(frame, &e)
	if e.Error == "" {
		return "Agent execution failed"
	}
	return e.Error
}
