package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/harnest/harnest/store"
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
	// OnBusy is what to do when the session is busy (busy.go): reject,
	// enqueue, interrupt or rollback; "" for the agent's default.
	OnBusy string

	busyTries int // how often the session was busy, then idle (queue.go)

	// ResponseID, when set, is the response's ID instead of a new one: a
	// caller that must start one response exactly once (a schedule's fire)
	// chooses it first and finds its receipt by it. Doors leave it empty.
	ResponseID string

	// KeepEvents keeps the events of the first segment for Outcome.Events,
	// for a caller that does not stream but folds them into a view of its
	// own (an A2A task), so it need not read them back from the log.
	KeepEvents bool
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
	watch    turnWatch        // measures the turn for the service's Observer
	endTrace func(TurnReport) // ends the turn's trace span (trace.go)

	// detachCaller stops the caller's context from cancelling a streamed
	// response.
	detachCaller func() bool
	// caller is the context of the call that started a JSON response (nil
	// in the background): Outcome, where that caller waits, cancels the
	// response when it ends first.
	caller context.Context
	// boundary is closed at the first boundary, when outcome is set.
	boundary     chan struct{}
	boundaryOnce sync.Once
	outcome      Outcome

	stream chan Event // the first segment's stream, as callers read it; nil unless streaming

	mu         sync.Mutex // guards everything below
	events     chan Event // stream while it is attached; nil once detached
	seq        int
	out        outputBuilder
	pending    []store.Event // events not yet in Redis
	arena      []byte        // the block events are encoded into (emit.go)
	flushing   bool          // a flush is scheduled
	flushAlarm *alarm        // schedules a flush; disarmed when the events are taken (alarm.go)
	state      map[string]json.RawMessage
	closed     bool
	// agentReturned is set once the agent's Run returned: later emits
	// are refused.
	agentReturned bool
	waiter        *waiter // the wait the agent is suspended on
	resumedBy     struct{ approval, clientTool string }
	waits         int // the waits asked for so far (waitID, waits_durable.go)

	// flushMu orders writes of events to Redis: flushes and commits.
	flushMu sync.Mutex
	// inStore is set once the response is in the store, holding its
	// session; until then its first write makes the session (begin).
	// Set under flushMu, or before the run starts.
	inStore atomic.Bool
	// admitted is the run's place in admission, until the run takes a
	// slot with it.
	admitted *ticket
	// slot and deadline of the agent's current segment.
	slot     *ticket
	deadline *alarm
	// limits is what the response took of its user's limits (limits.go).
	limits *userHold
	// webhook is where the final receipt is posted (webhook.go); nil for none.
	webhook *Webhook
	// epoch is the attempt of the run this replica holds (claim.go): 1
	// for the first run; every write of the turn carries it.
	epoch int
	// steers is the turn's steering inbox (nil unless the agent takes
	// steers), also Turn.Steers; steerBox holds it.
	steers   *Steers
	steerBox Steers
	// rerunRequest is what a claimer needs to run the turn again
	// (claim.go); nil when it is not rerun.
	rerunRequest []byte
	// kept holds the first segment's events for Outcome.Events while
	// keeping is set (response_keep.go); guarded by mu.
	keeping bool
	kept    []Event
}

// Outcome is how a response reached a boundary.
type Outcome struct {
	Envelope Envelope
	// Body is the envelope as JSON, exactly as the receipt stores it.
	Body []byte
	// Err is set when the response did not complete: its kind says why
	// (ErrTimeout, ErrCancelled, ErrNoOutput, ErrAgentFailed, ...).
	Err *Error
	// Events are the first segment's events, in order, when the request
	// asked to keep them (ResponseRequest.KeepEvents); nil otherwise.
	Events []Event
}

var (
	errTimedOut     = &Error{Kind: ErrTimeout, Code: CodeTimedOut, Detail: "Response timed out"}
	errNoOutput     = &Error{Kind: ErrNoOutput, Code: CodeNoOutput, Detail: "Agent completed without customer-facing output"}
	errAgentFailed  = &Error{Kind: ErrAgentFailed, Code: CodeInvocationFailed, Detail: "Agent execution failed"}
	errCancelled    = &Error{Kind: ErrCancelled, Code: CodeCancelled, Detail: "Response cancelled"}
	errShuttingDown = &Error{Kind: ErrUnavailable, Code: CodeShutdown, Detail: "The server is shutting down; retry on another replica"}
	errLeaseLost    = &Error{Kind: ErrAgentFailed, Code: CodeLeaseLost, Detail: "The response lost its session to another response"}
	errReceiptFinal = &Error{Kind: ErrConflict, Code: "receipt_final", Detail: "The response was already recorded as finished"}
	// errResponseExists refuses a response whose chosen ID the session
	// has already (ResponseRequest.ResponseID): its receipt stays as it is.
	errResponseExists = &Error{Kind: ErrConflict, Code: "response_exists", Detail: "The session already has a response with that ID; read its receipt instead of starting it again"}
	errDenied         = &Error{Kind: ErrApprovalDenied, Code: "denied", Detail: "The action was denied"}
)

// streamQueue is how many events a streaming response may emit ahead of
// the caller that writes them; beyond it the agent waits. (An Event is
// about 450 bytes: the queue is allocated with every streaming response.)
const streamQueue = 16

// emptyObject is the metadata of a request that sent none. Shared: nothing
// writes to it.
var emptyObject = json.RawMessage("{}")

// StartResponse checks the request, takes the session (creating it when no
// ID is given), records the in_progress receipt and starts the agent (a
// JSON turn that makes a new session is taken and recorded by its first
// write instead: see begin). The
// response runs until the agent ends, ctx ends (cancelled, unless
// Background), or the deadline passes. Errors here mean nothing was started.
func (s *Service) StartResponse(ctx context.Context, p Principal, req ResponseRequest) (*Response, error) {
	metadata, err := s.checkRequest(&req)
	if err != nil {
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
	responseID := req.ResponseID
	if responseID == "" {
		responseID = NewResponseID()
	}
	r, kept := newResponse(req.KeepEvents)
	*r = Response{
		ID: responseID, SessionID: sessionID, Background: req.Background, svc: s, metadata: metadata,
		done: make(chan struct{}), boundary: make(chan struct{}), watch: turnWatch{transport: req.Transport, started: time.Now()}, webhook: req.Webhook,
		epoch: 1, keeping: req.KeepEvents, kept: kept,
	}
	if req.Stream {
		r.stream = make(chan Event, streamQueue)
		r.events = r.stream
	}
	// What a claimer needs to run the turn again, when it may (claim.go,
	// waits_durable.go).
	if s.rerun && req.Background {
		r.rerunRequest = encodeRerun(req, p.UserID, false)
	} else if s.waitsResumable() {
		r.rerunRequest = encodeRerun(req, p.UserID, true)
	}
	// The response outlives the call that started it: a caller that goes
	// away before the first boundary cancels it (unless it runs in the
	// background), but once it waits for an answer it belongs to nobody.
	// The context exists before the run is tracked, so Shutdown and control
	// messages can always cancel what they see.
	// A JSON caller is watched where it waits (Outcome): registering a
	// function with its context cost a JSON turn three allocations and
	// about 1 µs of its 44.
	r.ctx, r.cancel = context.WithCancelCause(context.WithoutCancel(ctx))
	switch {
	case req.Background:
	case req.Stream:
		r.detachCaller = context.AfterFunc(ctx, func() { r.cancel(context.Canceled) })
	default:
		r.caller = ctx
	}
	place, err := s.admission.reserve(p.UserID)
	if err != nil {
		r.cancel(nil)
		return nil, err
	}
	if r.limits, err = s.takeUserLimits(ctx, p.UserID, r.ID, r.slotLost); err != nil {
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
	state, err := r.begin(ctx, p.UserID, create, req)
	if err != nil {
		return s.notBegun(ctx, p, req, r, place, err)
	}
	r.turn = Turn{
		ResponseID: r.ID, SessionID: sessionID, UserID: p.UserID, Attempt: 1,
		Input: req.Input, Content: content,
		State: state, Metadata: metadata,
		History: func(ctx context.Context, limit int) ([]Message, error) {
			return s.history(ctx, p.UserID, sessionID, limit)
		},
		Compaction:  s.compaction(p.UserID, sessionID, r.ID),
		ClientTools: req.ClientTools, Context: req.Context, Message: req.Message,
		RequestApproval:   r.requestApproval,
		RequestClientTool: r.requestClientTool,
	}
	r.turn.Journal = newJournal(r, nil)
	r.steers = newSteers(r, false)
	r.turn.Steers = r.steers
	r.startTrace(s.tracer)
	// response.created is emitted here, on the caller's goroutine: a
	// streaming caller finds it queued when this returns and writes it at
	// once, without waiting for the run's goroutine to be scheduled.
	r.emit(Event{Type: EventCreated, Metadata: r.metadata})
	r.admitted = place
	s.runners.run(r)
	return r, nil
}

// checkRequest refuses a request that cannot start a response (blank or
// too large input, a typed input that does not validate, a bad webhook or
// onBusy) and returns its metadata ({} when it sent none).
func (s *Service) checkRequest(req *ResponseRequest) (json.RawMessage, error) {
	if strings.TrimSpace(req.Input) == "" && len(req.Parts) == 0 {
		return nil, Errorf(ErrInvalid, "invalid_request", "input must be a non-blank string")
	}
	if len(req.Input) > s.maxIn {
		return nil, Errorf(ErrTooLarge, "input_too_large", "Input exceeds %s", FormatBytes(int64(s.maxIn)))
	}
	if err := s.checkInput(req); err != nil {
		return nil, err
	}
	if err := s.checkWebhook(*req); err != nil {
		return nil, err
	}
	if !ValidOnBusy(req.OnBusy) {
		return nil, errInvalidOnBusy(req.OnBusy)
	}
	if len(req.Metadata) == 0 || string(req.Metadata) == "null" {
		return emptyObject, nil
	}
	return req.Metadata, nil
}

// notBegun undoes what StartResponse took for a response whose session
// could not be taken (its admission place, its limits, its tracking), and
// answers: a busy session follows the request's onBusy (busy.go, queue.go).
func (s *Service) notBegun(ctx context.Context, p Principal, req ResponseRequest, r *Response, place *ticket, err error) (*Response, error) {
	busy := errors.Is(err, store.ErrSessionBusy)
	if busy {
		r.limits.release() // a queued response keeps its day's turn, not a slot (queue_limits.go)
	} else {
		r.limits.giveBack()
	}
	place.release()
	r.cancel(nil)
	s.untrack(r)
	switch {
	case errors.Is(err, store.ErrSessionNotFound):
		return nil, errSessionNotFound
	case errors.Is(err, store.ErrResponseExists):
		return nil, errResponseExists
	case busy:
		return s.whenBusy(ctx, p, req, r.ID, r.SessionID, r.metadata, r.limits)
	}
	return nil, s.storeFailure(err)
}

// begin takes the session for the response and returns its state. A new
// session whose caller learns of it only with the answer (a JSON turn, not
// in the background) is not begun here: nobody else can know it yet, so
// there is no lease to take. Its final step makes it, when that is its
// first write (commit); a flush or a suspension first begins it (beginLate).
// Such a turn costs the store one write instead of two.
func (r *Response) begin(ctx context.Context, user string, create bool, req ResponseRequest) (map[string]json.RawMessage, error) {
	s := r.svc
	if create && !req.Stream && !req.Background {
		return map[string]json.RawMessage{}, nil
	}
	state, err := s.store.BeginResponse(ctx, r.beginStep(user, create))
	if err == nil {
		r.inStore.Store(true)
	}
	return state, err
}

// beginStep is the store's Begin of the response, with its in_progress
// receipt.
func (r *Response) beginStep(user string, create bool) store.Begin {
	s := r.svc
	inProgress := r.envelope(StatusInProgress)
	receipt, _ := inProgress.encode()
	return store.Begin{
		User: user, Session: r.SessionID, ResponseID: r.ID, CreateSession: create,
		Receipt: receipt, Lease: s.lease, Replica: s.replica, Now: s.timestamp(),
		Webhook: r.webhook.stored(),
		Request: r.rerunRequest,
	}
}

// Events delivers the events of the response's first segment in order,
// response.created first, then closes after its boundary event
// (response.completed, with any status, or error). Nil unless Stream was
// set.
func (r *Response) Events() <-chan Event { return r.stream }

// Boundary is closed when the response reaches its first boundary.
func (r *Response) Boundary() <-chan struct{} { return r.boundary }

// Outcome waits for the first boundary and returns it. A JSON response is
// cancelled when its caller's context ends first.
func (r *Response) Outcome() Outcome {
	select {
	case <-r.boundary: // answered: the caller has no more say
	default:
		if r.caller != nil {
			select {
			case <-r.boundary:
			case <-r.caller.Done():
				r.cancel(context.Canceled)
			}
		}
	}
	<-r.boundary
	return r.outcome
}

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

// slotLost ends the response when its slot among its user's responses in
// progress lapsed and could not be taken back within the limit (limits.go):
// its receipt becomes failed with rate_limited.
func (r *Response) slotLost() {
	r.cancel(abortCause{slotLostError(r.svc.limits.ConcurrentResponses)})
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
		o.Events = r.keptEvents()
		r.outcome = o
		close(r.boundary)
	})
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
