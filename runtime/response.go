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
	// Input is the text input. With Parts, it is the parts' text joined
	// with newlines (and may be blank when there is media).
	Input string
	// Parts is the input as content parts, when the caller sent an array:
	// text, and media that names an asset of the session.
	Parts     []InputPart
	SessionID string          // "" starts a new session
	Metadata  json.RawMessage // caller metadata: a JSON object; nil is {}
	// Stream delivers the events through Response.Events as they happen.
	Stream bool
	// Background runs the response independently of the caller's context:
	// a caller that goes away does not cancel it.
	Background bool
	// Transport names the transport that started it (TransportJSON, ...),
	// for metrics.
	Transport string
	// ClientTools are tools the client offers for this response (AG-UI
	// frontend tools): a JSON array of {name, description?, parameters}.
	ClientTools json.RawMessage
	// Context is extra context from the client (AG-UI): a JSON array.
	Context json.RawMessage
	// Message is what the protocol message carried beside its parts
	// (A2A); the agent sees it as Turn.Message. Nil for none.
	Message *TurnMessage
	// Webhook, on a background response, posts its final receipt there
	// (webhook.go). Nil for none.
	Webhook *Webhook
}

// InputPart is one content part of an input: {"type":"text","text":...},
// {"type":"image"|"audio"|"video"|"file","assetId":...}, {"type":"data",
// "data":...} or {"type":"file","url":...} (see content.go).
type InputPart struct {
	Type    string
	Text    string
	AssetID string
	// Data is a data part's JSON value.
	Data json.RawMessage
	// URL is a file part's address (never fetched by the server).
	URL string
	// MediaType and Name are what the client said of a file by URL, and
	// the name of a file held as an asset.
	MediaType string
	Name      string
}

// Response is a running response. A streaming caller reads Events until the
// channel closes (at the first boundary: completed, requires_action or an
// error); every caller can wait for Boundary and read Outcome. The response
// itself may go on after a requires_action boundary, when its wait is
// answered, until Done.
type Response struct {
	ID         string
	SessionID  string
	Background bool

	svc      *Service
	turn     Turn
	metadata json.RawMessage
	ctx      context.Context // the response's life: ends when it is cancelled
	cancel   context.CancelCauseFunc
	done     chan struct{}    // closed when the response is over and recorded
	watch    *turnWatch       // measures the turn for the service's Observer
	endTrace func(TurnReport) // ends the turn's trace span (trace.go)

	// detachCaller stops the caller's context from cancelling the response.
	detachCaller func() bool
	// boundary is closed at the first boundary, when outcome is set.
	boundary     chan struct{}
	boundaryOnce sync.Once
	outcome      Outcome

	stream chan Event // the first segment's stream, as callers read it; nil unless streaming

	mu          sync.Mutex // guards everything below
	events      chan Event // stream while it is attached; nil once detached
	seq         int
	out         outputBuilder
	pending     []store.Event // events not yet in Redis
	flushing    bool          // a flush is scheduled
	flushTimer  *time.Timer   // schedules flushes; stopped when the events are taken
	state       map[string]json.RawMessage
	closed      bool
	agentCtx    context.Context
	agentCancel context.CancelCauseFunc
	waiter      *waiter // the wait the agent is suspended on
	resumedBy   struct{ approval, clientTool string }

	// flushMu orders writes of events to Redis: flushes and commits.
	flushMu sync.Mutex
	// slot and deadline of the agent's current segment.
	slot     *ticket
	deadline *time.Timer
	// limits is what the response took of its user's limits (limits.go).
	limits *userHold
	// webhook is where the final receipt is posted (webhook.go); nil for none.
	webhook *Webhook
}

// Outcome is how a response reached a boundary.
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
	errReceiptFinal = &Error{Kind: ErrConflict, Code: "receipt_final", Detail: "The response was already recorded as finished"}
	errDenied       = &Error{Kind: ErrApprovalDenied, Code: "denied", Detail: "The action was denied"}
)

// streamQueue is how many events a streaming response may emit ahead of
// the caller that writes them; beyond it the agent waits. (An Event is
// about 450 bytes: the queue is allocated with every streaming response.)
const streamQueue = 16

// StartResponse checks the request, takes the session (creating it when no
// ID is given), records the in_progress receipt and starts the agent. The
// response runs until the agent ends, ctx ends (cancelled, unless
// Background), or the deadline passes. Errors here mean nothing was started.
func (s *Service) StartResponse(ctx context.Context, p Principal, req ResponseRequest) (*Response, error) {
	if strings.TrimSpace(req.Input) == "" && len(req.Parts) == 0 {
		return nil, Errorf(ErrInvalid, "invalid_request", "input must be a non-blank string")
	}
	if len(req.Input) > s.maxIn {
		return nil, Errorf(ErrTooLarge, "input_too_large", "Input exceeds %s", FormatBytes(int64(s.maxIn)))
	}
	metadata := req.Metadata
	if len(metadata) == 0 || string(metadata) == "null" {
		metadata = json.RawMessage("{}")
	}
	if err := s.checkWebhook(req); err != nil {
		return nil, err
	}
	content, err := s.resolveContent(ctx, p, req)
	if err != nil {
		return nil, err
	}
	create := req.SessionID == ""
	if !create && !validSessionID(req.SessionID) {
		return nil, errSessionNotFound // no such session can exist
	}
	sessionID := req.SessionID
	if create {
		sessionID = NewSessionID()
	}
	r := &Response{
		ID: NewResponseID(), SessionID: sessionID, Background: req.Background, svc: s, metadata: metadata,
		done: make(chan struct{}), boundary: make(chan struct{}), watch: newTurnWatch(req.Transport), webhook: req.Webhook,
	}
	if req.Stream {
		r.stream = make(chan Event, streamQueue)
		r.events = r.stream
	}
	// The response outlives the call that started it: a caller that goes
	// away before the first boundary cancels it (unless it runs in the
	// background), but once it waits for an answer it belongs to nobody.
	// The context exists before the run is tracked, so Shutdown and control
	// messages can always cancel what they see.
	r.ctx, r.cancel = context.WithCancelCause(context.WithoutCancel(ctx))
	if !req.Background {
		r.detachCaller = context.AfterFunc(ctx, func() { r.cancel(context.Canceled) })
	}
	place, err := s.admission.reserve(p.UserID)
	if err != nil {
		r.cancel(nil)
		return nil, err
	}
	if r.limits, err = s.takeUserLimits(ctx, p.UserID, r.ID); err != nil {
		place.release()
		r.cancel(nil)
		return nil, err
	}
	if !s.track(r) {
		r.limits.giveBack()
		place.release()
		r.cancel(nil)
		return nil, errShuttingDown
	}
	inProgress := r.envelope(StatusInProgress)
	receipt, _ := inProgress.encode()
	state, err := s.store.BeginResponse(ctx, store.Begin{
		User: p.UserID, Session: sessionID, ResponseID: r.ID, CreateSession: create,
		Receipt: receipt, Lease: s.lease, Replica: s.replica, Now: s.timestamp(),
	})
	if err != nil {
		r.limits.giveBack()
		place.release()
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
		Input: req.Input, Content: content,
		State: state, Metadata: metadata,
		History: func(ctx context.Context, limit int) ([]Message, error) {
			return s.history(ctx, p.UserID, sessionID, limit)
		},
		ClientTools: req.ClientTools, Context: req.Context, Message: req.Message,
		RequestApproval:   r.requestApproval,
		RequestClientTool: r.requestClientTool,
	}
	r.startTrace(s.tracer)
	s.runners.run(func() { r.run(place) })
	return r, nil
}

// Events delivers the events of the response's first segment in order,
// response.created first, then closes after its boundary event
// (response.completed, with any status, or error). Nil unless Stream was
// set.
func (r *Response) Events() <-chan Event { return r.stream }

// Boundary is closed when the response reaches its first boundary.
func (r *Response) Boundary() <-chan struct{} { return r.boundary }

// Outcome waits for the first boundary and returns it.
func (r *Response) Outcome() Outcome { <-r.boundary; return r.outcome }

// Done is closed when the response is over and recorded.
func (r *Response) Done() <-chan struct{} { return r.done }

// Cancel stops the response; its receipt becomes cancelled.
func (r *Response) Cancel() { r.cancel(context.Canceled) }

// Abort stops the response because its caller broke the transport's
// protocol (a live frame it could not take): its receipt becomes failed
// with the given code, and its last event is an error with detail.
func (r *Response) Abort(code, detail string) {
	r.cancel(abortCause{&Error{Kind: ErrInvalid, Code: code, Detail: detail}})
}

// abortCause is the cancellation cause of Abort.
type abortCause struct{ err *Error }

func (a abortCause) Error() string { return a.err.Detail }

// envelope is the response's envelope with the given status and no output.
func (r *Response) envelope(status string) Envelope {
	return Envelope{ID: r.ID, SessionID: r.SessionID,
		EnvelopeBody: EnvelopeBody{Status: status, Output: []OutputItem{}, Metadata: r.metadata}}
}

// reachBoundary records the outcome for callers waiting on the first
// boundary; later boundaries are for followers only.
func (r *Response) reachBoundary(o Outcome) {
	r.boundaryOnce.Do(func() {
		if r.detachCaller != nil {
			r.detachCaller()
		}
		r.outcome = o
		close(r.boundary)
	})
}

func (r *Response) run(first *ticket) {
	s := r.svc
	defer s.untrack(r)
	defer close(r.done)
	defer r.cancel(nil)

	// The lease is renewed from the start, also while the run waits for a
	// slot, until its final step is recorded.
	stopRenew := r.renewLease()
	defer stopRenew()
	r.emit(Event{Type: EventCreated, Metadata: r.metadata})
	runErr := r.runAgent(first)
	r.finish(runErr)
}

var errDeadline = errors.New("response deadline passed")

// emitCompleted emits response.completed with env and returns env's
// receipt (the envelope's body is encoded once for both).
func (r *Response) emitCompleted(env *Envelope) []byte {
	event, receipt, err := completedWithReceipt(env)
	if err != nil { // raw JSON of the envelope that cannot be encoded
		r.emit(Event{Type: EventCompleted, Envelope: env})
		receipt, _ = env.encode()
		return receipt
	}
	r.emit(event)
	return receipt
}

// forCaller returns a backend's error as the caller should see it, or nil
// when it is an agent failure (its detail never reaches the caller). A
// backend says so with an *Error of one of these kinds: ErrAgentUnavailable
// (503: try later), ErrAgentRefused (404: do not retry), ErrRateLimited
// (429 with Retry-After), ErrInvalid (400: the input was refused, such as
// the relay's question that is too long), or ErrUnavailable with
// CodeStoreUnavailable (503: a store failure it passed on, Turn.History's
// or its own store call's).
func forCaller(err error) *Error {
	var e *Error
	if !errors.As(err, &e) {
		return nil
	}
	switch {
	case errors.Is(e.Kind, ErrAgentUnavailable), errors.Is(e.Kind, ErrAgentRefused),
		errors.Is(e.Kind, ErrRateLimited), errors.Is(e.Kind, ErrInvalid):
		return e
	case e.Kind == ErrUnavailable && e.Code == CodeStoreUnavailable:
		return e
	}
	return nil
}

// runAgent runs the agent under the deadline and behind admission. The
// deadline covers the wait for a slot too, so no run queues forever. A
// suspension gives the slot back and stops the deadline; resuming takes a
// slot again with a fresh deadline.
func (r *Response) runAgent(first *ticket) error {
	s := r.svc
	ctx, cancel := context.WithCancelCause(r.ctx)
	defer cancel(nil)
	r.mu.Lock()
	r.agentCtx, r.agentCancel = ctx, cancel
	r.mu.Unlock()
	defer r.leaveSegment()
	err := r.enterSegment(ctx, first)
	if err == nil {
		err = s.agent.Run(ctx, &r.turn, r.emitFromAgent)
		if err == nil && ctx.Err() != nil {
			err = ctx.Err() // the agent ignored cancellation and returned nil
		}
	}
	if err != nil && context.Cause(ctx) == errDeadline {
		return errDeadline
	}
	return err
}

// enterSegment starts the segment's deadline and waits for a run slot with
// the ticket.
func (r *Response) enterSegment(ctx context.Context, t *ticket) error {
	r.mu.Lock()
	if r.deadline == nil {
		cancel := r.agentCancel
		r.deadline = time.AfterFunc(r.svc.timeout, func() { cancel(errDeadline) })
	} else {
		r.deadline.Reset(r.svc.timeout)
	}
	r.mu.Unlock()
	queuedAt := time.Now()
	if err := t.acquire(ctx); err != nil {
		return err
	}
	r.svc.observer.AdmissionWaited(time.Since(queuedAt))
	r.mu.Lock()
	r.slot = t
	r.mu.Unlock()
	return nil
}

// leaveSegment stops the deadline and frees the run slot.
func (r *Response) leaveSegment() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.deadline != nil {
		r.deadline.Stop()
	}
	if r.slot != nil {
		r.slot.release()
		r.slot = nil
	}
}

// renewLease keeps the session held while the response lives: every third
// of the lease it extends the hold (a timer, not a goroutine, so short turns
// cost nothing). A queued run is renewed like a running one, so no replica
// takes it for the run of a dead replica.
func (r *Response) renewLease() (stop func()) {
	s := r.svc
	var mu sync.Mutex
	stopped := false
	var t *time.Timer
	mu.Lock() // t is set before the first renewal can reset it
	defer mu.Unlock()
	t = time.AfterFunc(s.lease/3, func() {
		ctx, cancel := context.WithTimeout(context.Background(), s.lease/3)
		ok, err := s.store.RenewLease(ctx, r.turn.UserID, r.SessionID, r.ID, s.replica, s.lease)
		cancel()
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

// finish decides the outcome, emits the last event and commits the final
// step.
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
	env.ApprovalID, env.ClientToolID = r.resumedBy.approval, r.resumedBy.clientTool
	r.mu.Unlock()

	var fail *Error
	switch {
	case runErr == nil && strings.TrimSpace(env.OutputText) == "" && len(env.Result) == 0 && !hasArtifact(env.Output):
		fail = errNoOutput // an answer of artifacts alone is an answer
	case runErr == nil:
	case errors.Is(runErr, errDeadline), errors.Is(runErr, ErrTimeout) && r.ctx.Err() == nil:
		fail = errTimedOut // the response's deadline, or a backend's own time limit
	case context.Cause(r.ctx) == errShutdown:
		fail = errShuttingDown
	case errors.As(context.Cause(r.ctx), new(abortCause)):
		var ac abortCause
		errors.As(context.Cause(r.ctx), &ac)
		fail = ac.err
	case r.ctx.Err() != nil:
		fail = errCancelled
	case errors.Is(runErr, ErrApprovalDenied), errors.Is(runErr, ErrApprovalExpired):
		fail = errDenied
	case forCaller(runErr) != nil:
		fail = forCaller(runErr) // its code and sentence are meant for the caller
	default:
		s.log.Warn("agent failed", "responseId", r.ID, "err", runErr)
		fail = errAgentFailed
	}

	commit := store.Commit{User: r.turn.UserID, Session: r.SessionID, ResponseID: r.ID, Release: true, Replica: s.replica, Now: s.timestamp()}
	var body []byte
	if fail == nil {
		body = r.emitCompleted(&env)
		r.mu.Lock()
		commit.StateDelta = r.state
		r.mu.Unlock()
		commit.Messages = r.transcriptMessages(env)
	} else {
		env = r.failedEnvelope(fail)
		switch {
		case fail.Kind == ErrCancelled, fail.Kind == ErrApprovalDenied, fail == errShuttingDown:
			// A cancelled (also by shutdown) or denied response ends with its
			// receipt as the last frame: response.completed with that status,
			// so streams say what the receipt says.
			body = r.emitCompleted(&env)
		default:
			r.emit(Event{Type: EventError, Error: fail.Detail})
			body, _ = env.encode()
		}
	}
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	commit.Receipt = body

	// The caller may be gone; the receipt is still recorded.
	err := r.record(&commit)
	switch {
	case errors.Is(err, store.ErrLeaseLost):
		fail, env = errLeaseLost, r.failedEnvelope(errLeaseLost)
		body, _ = env.encode()
		err = r.replaceReceipt(body)
	case err != nil && !errors.Is(err, store.ErrReceiptFinal):
		// The store did not answer: tell the caller now, and keep trying in
		// the background, so the receipt becomes this outcome once the store
		// is back (never replica_lost: this replica lives).
		s.log.Error("cannot record response; retrying", "responseId", r.ID, "err", err)
		r.detachStream()
		r.reachBoundary(Outcome{Envelope: env, Body: body, Err: s.storeFailure(err).(*Error)})
		err = r.recordUntilStored(&commit)
	}
	if errors.Is(err, store.ErrReceiptFinal) {
		// Recorded final meanwhile (by a sweeper that took this replica for
		// dead): that receipt stands, and callers see it.
		fail, env, body = r.storedOutcome()
		err = nil
	}
	if err != nil {
		s.log.Error("cannot record response", "responseId", r.ID, "err", err)
		if fail == nil {
			fail = s.storeFailure(err).(*Error)
		}
	}
	r.sendWebhook(commit.Events, body, err)
	r.reportEnd(env, fail) // before the caller has its answer, so metrics already count it
	r.limits.release()     // before the caller has its answer, so its next turn may start at once
	r.detachStream()
	r.reachBoundary(Outcome{Envelope: env, Body: body, Err: fail})
}

// failedEnvelope is the receipt of a response that did not complete: no
// output, and a stable code (a denied response names its approval).
func (r *Response) failedEnvelope(fail *Error) Envelope {
	status := StatusFailed
	switch {
	case fail.Kind == ErrCancelled || fail == errShuttingDown:
		status = StatusCancelled
	case fail == errDenied:
		status = StatusDenied
	}
	env := r.envelope(status)
	env.Metadata = json.RawMessage("{}")
	if status == StatusDenied {
		r.mu.Lock()
		env.ApprovalID = r.resumedBy.approval
		r.mu.Unlock()
	} else {
		env.Error = &EnvelopeError{Code: fail.Code}
	}
	return env
}

// transcriptMessages are the user turn and the assistant answer appended to
// the transcript when a response completes.
func (r *Response) transcriptMessages(env Envelope) [][]byte {
	now := r.svc.timestamp()
	b := make([]byte, 0, 320+len(r.turn.Input)+len(env.OutputText))
	b = r.appendMessage(b, "user", transcriptContent(r.turn), "", now)
	user := b[:len(b):len(b)]
	answer := r.appendMessage(b[len(b):], "assistant", nil, env.OutputText, now, toolActivity(env.Output)...)
	return [][]byte{user, answer}
}

// toolActivity is the tool calls and results of an answer, as its
// transcript message keeps them (metadata.tools), so that a model agent
// sees earlier tool results in its history. Nil when there are none.
func toolActivity(output []OutputItem) []OutputItem {
	var tools []OutputItem
	for _, item := range output {
		if item.Type == "tool_call" || item.Type == "tool_result" {
			tools = append(tools, item)
		}
	}
	return tools
}

// appendMessage appends one transcript message of the response (a Message
// as JSON) whose content is content, or text as a JSON string when content
// is nil; tools, when any, go into its metadata.
func (r *Response) appendMessage(b []byte, role string, content json.RawMessage, text, now string, tools ...OutputItem) []byte {
	o := beginObject(b)
	o.str("id", newMessageID())
	o.str("role", role)
	o.key("content")
	if content == nil {
		o.b = appendJSONString(o.b, text)
	} else {
		o.b = append(o.b, content...) // compact JSON, written by this package
	}
	o.str("createdAt", now)
	o.key("metadata")
	m := beginObject(o.b)
	m.str("responseId", r.ID)
	if len(tools) > 0 {
		if encoded, err := json.Marshal(tools); err == nil {
			m.key("tools")
			m.b = append(m.b, encoded...)
		}
	}
	o.b = m.end()
	return o.end()
}

// transcriptContent is the user turn as the transcript keeps it: the text,
// or, for an input with media, the parts with media as placeholders (never
// the bytes).
func transcriptContent(t Turn) json.RawMessage {
	if len(t.Content) == 1 && t.Content[0].Type == "text" {
		return jsonString(t.Input)
	}
	parts := make([]map[string]string, len(t.Content))
	for i, c := range t.Content {
		if c.Type == "text" {
			parts[i] = map[string]string{"type": "text", "text": c.Text}
		} else {
			parts[i] = map[string]string{"type": c.Type, "mediaType": c.MediaType, "content": "attached"}
		}
	}
	b, _ := json.Marshal(parts)
	return b
}

func jsonString(s string) json.RawMessage { return appendJSONString(nil, s) }

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
	if !validSessionID(sessionID) {
		return nil, errResponseNotFound
	}
	b, found, err := s.store.Receipt(ctx, p.UserID, sessionID, responseID)
	if err != nil {
		return nil, s.storeFailure(err)
	}
	if !found {
		return nil, errResponseNotFound
	}
	return b, nil
}

var errResponseNotFound = &Error{Kind: ErrNotFound, Code: "response_not_found", Detail: "Response not found"}
