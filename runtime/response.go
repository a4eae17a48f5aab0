package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/harnest/harnest/runtime/store"
)

// ResponseRequest asks the agent for one turn.
type ResponseRequest struct {
	Input     string
	SessionID string          // "" starts a new session
	Metadata  json.RawMessage // caller metadata: a JSON object; nil is {}
	// Stream delivers the events through Response.Events as they happen.
	Stream bool
}

// Response is a running response. Read Events (when streaming) until it is
// closed, then Outcome; or only Wait.
type Response struct {
	ID        string
	SessionID string

	svc      *Service
	turn     Turn
	metadata json.RawMessage
	events   chan Event // nil unless streaming
	cancel   context.CancelCauseFunc
	ctx      context.Context // the response's life: ends when it is cancelled
	agentCtx context.Context // the agent's run: also ends at the deadline
	done     chan struct{}
	outcome  Outcome

	mu     sync.Mutex // guards emit: backends may call it from several goroutines
	seq    int
	out    outputBuilder
	log    [][]byte
	state  map[string]json.RawMessage
	closed bool
}

// Outcome is how a response ended.
type Outcome struct {
	Envelope Envelope
	// Body is the envelope as JSON, exactly as the receipt stores it.
	Body []byte
	// Err is set when the response did not complete: its kind says why
	// (ErrTimeout, ErrCancelled, ErrNoOutput, ErrAgentFailed, ...).
	Err *Error
}

var (
	errTimedOut     = &Error{Kind: ErrTimeout, Code: CodeTimedOut, Detail: "Response timed out"}
	errNoOutput     = &Error{Kind: ErrNoOutput, Code: CodeNoOutput, Detail: "Agent completed without customer-facing output"}
	errAgentFailed  = &Error{Kind: ErrAgentFailed, Code: CodeInvocationFailed, Detail: "Agent execution failed"}
	errCancelled    = &Error{Kind: ErrCancelled, Code: CodeCancelled, Detail: "Response cancelled"}
	errShuttingDown = &Error{Kind: ErrUnavailable, Code: CodeShutdown, Detail: "The server is shutting down; retry on another replica"}
	errLeaseLost    = &Error{Kind: ErrAgentFailed, Code: CodeLeaseLost, Detail: "The response lost its session to another response"}
)

// StartResponse checks the request, takes the session (creating it when no
// ID is given), records the in_progress receipt and starts the agent. The
// response runs until the agent ends, ctx ends (cancelled), or the deadline
// passes. Errors here mean nothing was started.
func (s *Service) StartResponse(ctx context.Context, p Principal, req ResponseRequest) (*Response, error) {
	if strings.TrimSpace(req.Input) == "" {
		return nil, Errorf(ErrInvalid, "invalid_request", "input must be a non-blank string")
	}
	if len(req.Input) > s.maxIn {
		return nil, Errorf(ErrTooLarge, "input_too_large", "Input exceeds %s", FormatBytes(int64(s.maxIn)))
	}
	metadata := req.Metadata
	if len(metadata) == 0 || string(metadata) == "null" {
		metadata = json.RawMessage("{}")
	}
	create := req.SessionID == ""
	sessionID := req.SessionID
	if create {
		sessionID = NewSessionID()
	}
	r := &Response{
		ID: NewResponseID(), SessionID: sessionID, svc: s, metadata: metadata,
		done: make(chan struct{}),
	}
	if req.Stream {
		r.events = make(chan Event, 64)
	}
	// The context exists before the run is tracked, so Shutdown can always
	// cancel what it sees.
	r.ctx, r.cancel = context.WithCancelCause(ctx)
	if !s.track(r) {
		r.cancel(nil)
		return nil, errShuttingDown
	}
	receipt, _ := json.Marshal(r.envelope(StatusInProgress))
	state, err := s.store.BeginResponse(ctx, store.Begin{
		User: p.UserID, Session: sessionID, ResponseID: r.ID, CreateSession: create,
		Receipt: receipt, Lease: s.lease, Now: s.timestamp(),
	})
	if err != nil {
		r.cancel(nil)
		s.untrack(r)
		switch {
		case errors.Is(err, store.ErrSessionNotFound):
			return nil, errSessionNotFound
		case errors.Is(err, store.ErrSessionBusy):
			return nil, errSessionBusy
		}
		return nil, s.storeFailure(err)
	}
	r.turn = Turn{
		ResponseID: r.ID, SessionID: sessionID, UserID: p.UserID,
		Input: req.Input, State: state, Metadata: metadata,
		History: func(ctx context.Context, limit int) ([]Message, error) {
			return s.history(ctx, p.UserID, sessionID, limit)
		},
	}
	go r.run()
	return r, nil
}

// Events delivers the response's events in order, response.created first and
// response.completed or error last, then closes. Nil unless Stream was set.
func (r *Response) Events() <-chan Event { return r.events }

// Each calls fn for every event of a streaming response, in order, until the
// stream ends. Once fn returns an error (the client went away), the response
// is cancelled and the rest of the stream is drained without calling fn.
// It returns the outcome.
func (r *Response) Each(fn func(Event) error) Outcome {
	failed := false
	for e := range r.events {
		if failed {
			continue
		}
		if err := fn(e); err != nil {
			failed = true
			r.Cancel()
		}
	}
	return r.Outcome()
}

// Done is closed when the outcome is recorded.
func (r *Response) Done() <-chan struct{} { return r.done }

// Outcome is how the response ended; valid once Done is closed.
func (r *Response) Outcome() Outcome { <-r.done; return r.outcome }

// Cancel stops the response; its receipt becomes cancelled.
func (r *Response) Cancel() { r.cancel(context.Canceled) }

// envelope is the response's envelope with the given status and no output.
func (r *Response) envelope(status string) Envelope {
	return Envelope{ID: r.ID, SessionID: r.SessionID, Status: status, Output: []OutputItem{}, Metadata: r.metadata}
}

func (r *Response) run() {
	s := r.svc
	defer s.untrack(r)
	defer close(r.done)
	if r.events != nil {
		defer close(r.events)
	}
	defer r.cancel(nil)

	r.emit(Event{Type: EventCreated, Metadata: r.metadata})
	runErr := r.runAgent()
	r.finish(runErr)
}

// runAgent waits for the gate, then runs the agent under the deadline while
// renewing the session lease.
func (r *Response) runAgent() error {
	s := r.svc
	release, err := s.gate.acquire(r.ctx)
	if err != nil {
		return err
	}
	defer release()

	ctx, cancel := context.WithTimeoutCause(r.ctx, s.timeout, errDeadline)
	defer cancel()
	r.mu.Lock()
	r.agentCtx = ctx
	r.mu.Unlock()
	stopRenew := r.renewLease(ctx)
	defer stopRenew()

	err = s.agent.Run(ctx, &r.turn, r.emitFromAgent)
	if err == nil && ctx.Err() != nil {
		err = ctx.Err() // the agent ignored cancellation and returned nil
	}
	if err != nil && context.Cause(ctx) == errDeadline && r.ctx.Err() == nil {
		return errDeadline
	}
	return err
}

var errDeadline = errors.New("response deadline passed")

// renewLease keeps the session held while the agent runs: every third of
// the lease it extends the hold (a timer, not a goroutine, so short turns
// cost nothing).
func (r *Response) renewLease(ctx context.Context) (stop func()) {
	s := r.svc
	var mu sync.Mutex
	stopped := false
	var t *time.Timer
	t = time.AfterFunc(s.lease/3, func() {
		ok, err := s.store.RenewLease(ctx, r.turn.UserID, r.SessionID, r.ID, s.lease)
		mu.Lock()
		defer mu.Unlock()
		if stopped {
			return
		}
		if err == nil && !ok {
			s.log.Warn("response lost its session lease", "responseId", r.ID)
		}
		t.Reset(s.lease / 3)
	})
	return func() {
		mu.Lock()
		defer mu.Unlock()
		stopped = true
		t.Stop()
	}
}

// emitFromAgent is the Emit the agent gets: it refuses events once the
// response is over and drops the types an agent may not send.
func (r *Response) emitFromAgent(e Event) error {
	r.mu.Lock()
	ctx := r.agentCtx
	r.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return err
	}
	switch e.Type {
	case EventCreated, EventCompleted, EventError, EventInProgress, EventApproval, EventClientTool:
		return Errorf(ErrInvalid, "invalid_event", "an agent cannot emit %s", e.Type)
	}
	if !r.svc.policy.filter(&e) {
		return nil
	}
	return r.emit(e)
}

// emit numbers an event, folds it into the output, logs it and hands it to
// the streaming transport. Numbering and handing over happen under one lock,
// so events reach the transport in sequence order even when an agent emits
// from several goroutines; the transport always drains the channel, so the
// send cannot block forever.
func (r *Response) emit(e Event) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return errCancelled
	}
	e.Sequence, e.ResponseID, e.SessionID = r.seq, r.ID, r.SessionID
	b, err := e.encode()
	if err != nil {
		return Errorf(ErrInvalid, "invalid_event", "event cannot be encoded: %v", err)
	}
	e.encoded = b
	r.seq++
	r.log = append(r.log, b)
	r.out.add(e)
	if e.Type == EventStateDelta {
		if r.state == nil {
			r.state = map[string]json.RawMessage{}
		}
		for k, v := range e.StateDelta {
			r.state[k] = v
		}
	}
	if r.events == nil {
		return nil
	}
	if e.Type == EventCompleted || e.Type == EventError {
		r.events <- e // the last event: the consumer reads until close
		return nil
	}
	select {
	case r.events <- e:
		return nil
	case <-r.ctx.Done():
		return r.ctx.Err()
	}
}

// finish decides the outcome, emits the last event and commits the step.
func (r *Response) finish(runErr error) {
	s := r.svc
	r.mu.Lock()
	env := r.envelope(StatusCompleted)
	env.Output = r.out.items
	if env.Output == nil {
		env.Output = []OutputItem{}
	}
	env.OutputText = string(r.out.text)
	env.Usage = r.out.usage
	r.mu.Unlock()

	var fail *Error
	switch {
	case runErr == nil && strings.TrimSpace(env.OutputText) == "" && len(env.Result) == 0:
		fail = errNoOutput
	case runErr == nil:
	case errors.Is(runErr, errDeadline), errors.Is(runErr, ErrTimeout) && r.ctx.Err() == nil:
		fail = errTimedOut // the response's deadline, or a backend's own time limit
	case context.Cause(r.ctx) == errShutdown:
		fail = errShuttingDown
	case r.ctx.Err() != nil:
		fail = errCancelled
	default:
		s.log.Warn("agent failed", "responseId", r.ID, "err", runErr)
		fail = errAgentFailed
	}

	commit := store.Commit{User: r.turn.UserID, Session: r.SessionID, ResponseID: r.ID, Release: true, Now: s.timestamp()}
	if fail == nil {
		r.emit(Event{Type: EventCompleted, Envelope: &env})
		commit.StateDelta = r.state
		commit.Messages = r.transcriptMessages(env)
	} else {
		env = r.failedEnvelope(fail)
		if fail.Kind != ErrCancelled {
			r.emit(Event{Type: EventError, Error: fail.Detail})
		}
	}
	body, _ := json.Marshal(env)
	r.mu.Lock()
	r.closed = true
	commit.Events = r.log
	r.mu.Unlock()
	commit.Receipt = body

	// The caller may be gone; the receipt is still recorded.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.ctx), 10*time.Second)
	defer cancel()
	err := s.store.CommitResponse(ctx, commit)
	if errors.Is(err, store.ErrLeaseLost) {
		fail, env = errLeaseLost, r.failedEnvelope(errLeaseLost)
		body, _ = json.Marshal(env)
		err = s.store.WriteReceipt(ctx, r.turn.UserID, r.SessionID, r.ID, body)
	}
	if err != nil {
		s.log.Error("cannot record response", "responseId", r.ID, "err", err)
		if fail == nil {
			fail = s.storeFailure(err).(*Error)
		}
	}
	r.outcome = Outcome{Envelope: env, Body: body, Err: fail}
}

// failedEnvelope is the receipt of a response that did not complete: no
// output, the caller's metadata, and a stable code.
func (r *Response) failedEnvelope(fail *Error) Envelope {
	status := StatusFailed
	if fail.Kind == ErrCancelled || fail == errShuttingDown {
		status = StatusCancelled
	}
	env := r.envelope(status)
	env.Metadata = json.RawMessage("{}")
	env.Error = &EnvelopeError{Code: fail.Code}
	return env
}

// transcriptMessages are the user turn and the assistant answer appended to
// the transcript when a response completes.
func (r *Response) transcriptMessages(env Envelope) [][]byte {
	now := r.svc.timestamp()
	meta, _ := json.Marshal(map[string]string{"responseId": r.ID})
	user, _ := json.Marshal(Message{ID: newMessageID(), Role: "user", Content: jsonString(r.turn.Input), CreatedAt: now, Metadata: meta})
	answer, _ := json.Marshal(Message{ID: newMessageID(), Role: "assistant", Content: jsonString(env.OutputText), CreatedAt: now, Metadata: meta})
	return [][]byte{user, answer}
}

func jsonString(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

// history reads the transcript tail for an agent.
func (s *Service) history(ctx context.Context, user, session string, limit int) ([]Message, error) {
	rows, err := s.store.LastMessages(ctx, user, session, limit)
	if err != nil {
		return nil, err
	}
	out := make([]Message, 0, len(rows))
	for _, row := range rows {
		var m Message
		if err := json.Unmarshal(row.JSON, &m); err == nil {
			out = append(out, m)
		}
	}
	return out, nil
}

// GetResponse returns the receipt of one of the user's responses in the
// given session: exactly the JSON the call returned, or the in_progress
// envelope while it runs.
func (s *Service) GetResponse(ctx context.Context, p Principal, sessionID, responseID string) ([]byte, error) {
	b, found, err := s.store.Receipt(ctx, p.UserID, sessionID, responseID)
	if err != nil {
		return nil, s.storeFailure(err)
	}
	if !found {
		return nil, Errorf(ErrNotFound, "response_not_found", "Response not found")
	}
	return b, nil
}
