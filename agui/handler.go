package agui

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/harnest/harnest/internal/auth"
	"github.com/harnest/harnest/internal/defaults"
	"github.com/harnest/harnest/internal/httpapi"
	"github.com/harnest/harnest/internal/jsonwrite"
	"github.com/harnest/harnest/internal/sse"
	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/store"
)

// Options configure the AG-UI endpoint.
type Options struct {
	Service *runtime.Service
	// MaxBodyBytes bounds the request body (limits.maxRequestBytes;
	// default 1 MiB).
	MaxBodyBytes int
	// KeepAlive is the idle time after which the stream gets a comment
	// (default 15 s).
	KeepAlive time.Duration
	Logger    *slog.Logger
	// Store keeps the per-thread records that resumes need
	// (store.Threads), shared by every replica and kept as long as
	// receipts; required.
	Store Store
}

// Store is what the handler keeps and reads in the store: its thread
// records, and a wait by its ID (to tell what became of an interaction
// that is no longer pending).
type Store interface {
	store.Threads
	// GetWait is store.Waits' GetWait.
	GetWait(ctx context.Context, user, id string) (store.Wait, bool, error)
}

// Handler serves POST /agui.
type Handler struct {
	svc       *runtime.Service
	maxBody   int64
	keepAlive time.Duration
	log       *slog.Logger
	store     Store
	newID     func() string
}

// New builds the handler. It serves POST only; mount it at /agui.
func New(o Options) http.Handler {
	if o.Store == nil {
		panic("agui: Options.Store is required (the thread records live in the store)")
	}
	h := &Handler{svc: o.Service, store: o.Store, maxBody: int64(o.MaxBodyBytes), keepAlive: o.KeepAlive, log: o.Logger, newID: newHex}
	h.maxBody = defaults.Positive(h.maxBody, 1<<20)
	h.keepAlive = defaults.Positive(h.keepAlive, 15*time.Second)
	h.log = defaults.Logger(h.log)
	return h
}

func newHex() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// ServeHTTP runs one AG-UI run. Everything is checked before anything is
// stored; problems found then are plain HTTP errors ({"detail","code"}).
// Once the stream starts, failures are RUN_ERROR events.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		fail(w, http.StatusMethodNotAllowed, "method_not_allowed", "POST a RunAgentInput to this endpoint")
		return
	}
	obj, ok := h.readObject(w, r)
	if !ok {
		return
	}
	in, err := parseRunInput(obj, h.newID)
	if err != nil {
		fail(w, http.StatusBadRequest, "invalid_request", "Invalid RunAgentInput: "+err.Error())
		return
	}
	p := auth.From(r.Context())
	switch {
	case len(in.Resume) > 0:
		h.resumeInterrupts(w, r, p, in)
	case in.LastRole == "tool":
		h.answerTools(w, r, p, in)
	case len(in.Messages) == 0 && in.LastRole == "":
		h.handshake(w, r, p, in)
	case in.LastRole != "user":
		fail(w, http.StatusBadRequest, "invalid_request", "Invalid RunAgentInput: A new run must end with a user message")
	default:
		h.newRun(w, r, p, in)
	}
}

// readObject reads the bounded body as a JSON object. AG-UI clients send
// JSON; the content type is not checked.
func (h *Handler) readObject(w http.ResponseWriter, r *http.Request) (map[string]json.RawMessage, bool) {
	return httpapi.ReadObject(w, r, h.maxBody)
}

// session returns the thread's session, creating it in the caller's
// namespace when it is new (or when the client named no thread).
func (h *Handler) session(ctx context.Context, p runtime.Principal, in *runInput) (runtime.Session, error) {
	if in.ThreadID != "" {
		s, err := h.svc.GetSession(ctx, p, in.ThreadID)
		if !errors.Is(err, runtime.ErrNotFound) {
			return s, err
		}
	}
	s, err := h.svc.CreateSession(ctx, p, in.ThreadID, nil)
	if errors.Is(err, runtime.ErrConflict) { // created meanwhile by another run
		return h.svc.GetSession(ctx, p, in.ThreadID)
	}
	if err == nil {
		in.ThreadID = s.ID
	}
	return s, err
}

// handshake answers messages: []: the thread exists afterwards, and the
// run starts and finishes without the agent.
func (h *Handler) handshake(w http.ResponseWriter, r *http.Request, p runtime.Principal, in runInput) {
	s, err := h.session(r.Context(), p, &in)
	if err != nil {
		writeError(w, err)
		return
	}
	w.Header().Set("Harnest-Session-Id", in.ThreadID)
	sw := sse.Start(w, h.keepAlive)
	defer sw.Close()
	em := newEmitter(in, s.State, func(b []byte) error { return sw.Event("", -1, b) }, h.newID)
	em.begin()
	em.end(nil, nil)
}

// newRun starts a response for the newest user message.
func (h *Handler) newRun(w http.ResponseWriter, r *http.Request, p runtime.Principal, in runInput) {
	ctx := r.Context()
	if in.ThreadID != "" {
		pend, err := h.pending(ctx, p, in.ThreadID)
		if err != nil {
			writeError(w, err)
			return
		}
		if len(pend.actions) > 0 {
			fail(w, http.StatusConflict, "interaction_pending", "Resolve every pending interaction before sending new input")
			return
		}
	}
	parts, err := h.typedInput(in.Input) // typed_input.go: checked before the thread is made
	if err != nil {
		writeError(w, err)
		return
	}
	s, err := h.session(ctx, p, &in)
	if err != nil {
		writeError(w, err)
		return
	}
	// The client's state is merged into the session for the run: only the
	// members it changed are written.
	changed := map[string]json.RawMessage{}
	for k, v := range in.State {
		if old, ok := s.State[k]; !ok || string(jsonwrite.Compact(old)) != string(v) {
			changed[k] = v
		}
	}
	if len(changed) > 0 {
		if s, err = h.svc.PatchSession(ctx, p, in.ThreadID, changed); err != nil {
			writeError(w, err)
			return
		}
	}
	resp, err := h.svc.StartResponse(ctx, p, runtime.ResponseRequest{
		Input: in.Input, Parts: parts, SessionID: in.ThreadID, Stream: true,
		Metadata: runMetadata(in), ClientTools: in.Tools, Context: in.Context,
		Transport: runtime.TransportAGUI, OnBusy: runtime.OnBusyOf(in.ForwardedProps),
	})
	if err != nil {
		writeError(w, err)
		return
	}
	if err := h.store.PutThread(ctx, p.UserID, in.ThreadID, store.ThreadRecord{ResponseID: resp.ID, UserKey: in.UserKey}); err != nil {
		h.log.Warn("agui: cannot record the thread's run; it cannot be resumed", "responseId", resp.ID, "err", err)
	}
	w.Header().Set("Harnest-Response-Id", resp.ID)
	w.Header().Set("Harnest-Session-Id", resp.SessionID)
	sw := sse.Start(w, h.keepAlive)
	defer sw.Close()
	em := newEmitter(in, s.State, func(b []byte) error { return sw.Event("", -1, b) }, h.newID)
	em.begin()
	var last *runtime.Event
	out := resp.Each(func(n runtime.Event) error {
		n, ok := typedEvent(n)
		if !ok {
			return nil
		}
		if isBoundary(n) {
			last = &n
			return em.err
		}
		em.event(n)
		return em.err
	})
	h.end(em, last, out.Err)
}

// isBoundary reports the events that end a segment.
func isBoundary(n runtime.Event) bool {
	switch n.Type {
	case runtime.EventCompleted, runtime.EventError, runtime.EventInProgress:
		return true
	}
	return false
}

// end finishes the run from the segment's boundary event; a stream that
// ended without one (or a failure without its event) is an error.
func (h *Handler) end(em *emitter, last *runtime.Event, failure *runtime.Error) {
	switch {
	case last != nil && last.Type == runtime.EventError && failure != nil:
		em.fail(failure.Detail, failure.Code)
	case last != nil && last.Type == runtime.EventError:
		em.fail(last.Error, runtime.CodeInvocationFailed)
	case last != nil:
		em.finish(*last, "")
	case failure != nil:
		em.fail(failure.Detail, failure.Code)
	default:
		em.fail("The response ended without a result", runtime.CodeInvocationFailed)
	}
}

// runMetadata is the response's metadata: the run's ID and the client's
// forwardedProps, which are passed along and never grant authority.
func runMetadata(in runInput) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"agui": struct {
		RunID          string          `json:"runId"`
		ForwardedProps json.RawMessage `json:"forwardedProps,omitempty"`
	}{in.RunID, in.ForwardedProps}})
	return b
}

func writeError(w http.ResponseWriter, err error) { httpapi.WriteError(w, err) }

func fail(w http.ResponseWriter, status int, code, detail string) {
	httpapi.Fail(w, status, code, detail)
}
