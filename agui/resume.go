package agui

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/harnest/harnest/internal/sse"
	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/store"
)

// Conflicts of resumes, as the reference words them.
const (
	msgResolveFirst = "Resolve every pending interaction before sending new input"
	msgNoMatch      = "No matching pending AG-UI interaction"
)

// pendingSet is what a thread waits for: the actions of its last run's
// response while that response requires action (the runtime holds one wait
// per response, so this is one action or none).
type pendingSet struct {
	rec     store.ThreadRecord
	found   bool                 // the thread has a recorded run
	receipt runtime.ReceiptState // where that run stands, when found
	actions []runtime.RequiredAction
}

// pending reads what the thread waits for, from its record and the
// receipt of the recorded response. A receipt that is gone (expired, or
// the session was deleted) means nothing is pending.
func (h *Handler) pending(ctx context.Context, p runtime.Principal, thread string) (pendingSet, error) {
	var ps pendingSet
	rec, ok, err := h.store.GetThread(ctx, p.UserID, thread)
	if err != nil {
		h.log.Error("agui: cannot read a thread record", "err", err)
		return ps, runtime.Errorf(runtime.ErrUnavailable, "store_unavailable", "The state store is unavailable; retry shortly")
	}
	if !ok {
		return ps, nil
	}
	body, err := h.svc.GetResponse(ctx, p, thread, rec.ResponseID)
	if errors.Is(err, runtime.ErrNotFound) {
		return ps, nil
	}
	if err != nil {
		return ps, err
	}
	ps.rec, ps.found = rec, true
	if ps.receipt, err = runtime.ParseReceiptState(body); err != nil {
		return ps, nil
	}
	if ps.receipt.Status == runtime.StatusRequiresAction && ps.receipt.RequiredAction != nil {
		ps.actions = []runtime.RequiredAction{*ps.receipt.RequiredAction}
	}
	return ps, nil
}

// checkUser refuses a new user message while the thread waits: the newest
// user message must be the one that started the waiting run.
func checkUser(w http.ResponseWriter, in runInput, ps pendingSet) bool {
	if in.UserKey != "" && ps.rec.UserKey != "" && in.UserKey != ps.rec.UserKey {
		fail(w, http.StatusConflict, "interaction_pending", msgResolveFirst)
		return false
	}
	return true
}

// answer is one checked answer to a pending action.
type answer struct {
	action    runtime.RequiredAction
	decision  runtime.ApprovalAnswer // approvals (approval_answer.go)
	output    json.RawMessage        // client tools
	cancel    bool                   // a cancelled client tool: the response is cancelled
	viaResume bool                   // answered by resume (the client has no tool message for it)
}

// threadPending reads what the run's thread waits for, the start of every
// answer to a wait; false: it has answered the request already (a run
// without a thread has nothing to answer; the store failed).
func (h *Handler) threadPending(w http.ResponseWriter, r *http.Request, p runtime.Principal, in runInput) (pendingSet, bool) {
	if in.ThreadID == "" {
		fail(w, http.StatusConflict, "no_pending_interaction", msgNoMatch)
		return pendingSet{}, false
	}
	ps, err := h.pending(r.Context(), p, in.ThreadID)
	if err != nil {
		writeError(w, err)
		return ps, false
	}
	return ps, true
}

// resumeInterrupts answers the thread's pending interactions with
// RunAgentInput.resume, then streams the resumed response to its next
// boundary. The resume must cover every pending interaction.
func (h *Handler) resumeInterrupts(w http.ResponseWriter, r *http.Request, p runtime.Principal, in runInput) {
	ps, ok := h.threadPending(w, r, p, in)
	if !ok {
		return
	}
	if len(ps.actions) == 0 {
		h.staleResume(w, r, p, in, ps)
		return
	}
	if !checkUser(w, in, ps) {
		return
	}
	entries := map[string]resumeEntry{}
	for _, e := range in.Resume {
		entries[e.InterruptID] = e
	}
	byID := map[string]bool{}
	var answers []answer
	for _, a := range ps.actions {
		byID[a.ID] = true
		e, ok := entries[a.ID]
		if !ok {
			fail(w, http.StatusConflict, "interaction_pending", msgResolveFirst)
			return
		}
		ans, msg := checkEntry(a, e)
		if msg != "" {
			fail(w, http.StatusBadRequest, "invalid_request", "Invalid RunAgentInput: "+msg)
			return
		}
		answers = append(answers, ans)
	}
	for _, e := range in.Resume {
		if !byID[e.InterruptID] {
			fail(w, http.StatusConflict, "no_pending_interaction", msgNoMatch)
			return
		}
	}
	h.answerAndFollow(w, r, p, in, ps, answers)
}

// checkEntry checks one resume entry against its action; msg says what is
// wrong with it.
func checkEntry(a runtime.RequiredAction, e resumeEntry) (answer, string) {
	ans := answer{action: a, viaResume: true}
	if a.Type == "human_approval" {
		ans.decision = runtime.Deny
		if e.Cancelled {
			if e.Payload != nil {
				return ans, "a cancelled approval carries no payload (cancelled means deny)"
			}
			return ans, "" // deny
		}
		var msg string
		ans.decision, msg = approvalPayload(e.Payload)
		return ans, msg
	}
	if e.Cancelled {
		ans.cancel = true
		return ans, ""
	}
	if e.Payload == nil {
		return ans, "resolving a client tool needs a payload: the tool's output"
	}
	ans.output = e.Payload
	return ans, ""
}

// staleResume answers a resume when nothing is pending. Interactions of
// the thread that are over (answered, expired, or their response ended)
// are reported in the stream, so the client can drop them: cancelling them
// finishes the run, resolving one is an error. An interrupt the thread
// never had is a conflict.
func (h *Handler) staleResume(w http.ResponseWriter, r *http.Request, p runtime.Principal, in runInput, ps pendingSet) {
	if !ps.found || ps.receipt.Status == runtime.StatusInProgress {
		fail(w, http.StatusConflict, "no_pending_interaction", msgNoMatch)
		return
	}
	resolved := ""
	for _, e := range in.Resume {
		status, over := h.waitOver(r.Context(), p, in.ThreadID, e.InterruptID, ps)
		if !over {
			fail(w, http.StatusConflict, "no_pending_interaction", msgNoMatch)
			return
		}
		if !e.Cancelled && resolved == "" {
			resolved = "The interaction " + e.InterruptID + " is no longer pending (it is " + status + ")"
		}
	}
	sw := sse.Start(w, h.keepAlive)
	defer sw.Close()
	em := newEmitter(in, nil, func(b []byte) error { return sw.Event("", -1, b) }, h.newID)
	em.begin()
	if resolved != "" {
		em.fail(resolved, "interaction_closed")
		return
	}
	em.end(statusResult(ps.receipt.Status, ps.receipt.ID, ps.receipt.ApprovalID), nil)
}

// waitOver reports an interaction of the thread that is no longer pending,
// and what became of it: from the wait itself while the store keeps it,
// else from the receipt of the thread's last response, which names the
// last wait it resumed from.
func (h *Handler) waitOver(ctx context.Context, p runtime.Principal, thread, id string, ps pendingSet) (string, bool) {
	if w, found, err := h.store.GetWait(ctx, p.UserID, id); err == nil && found {
		return w.Status, w.Session == thread && w.Status != store.WaitPending
	}
	if id == ps.receipt.ApprovalID || id == ps.receipt.ClientToolID {
		return ps.receipt.Status, true
	}
	return "", false
}

// answerTools answers the thread's pending client tools with the trailing
// role:"tool" messages (the frontend-tool loop), then streams the resumed
// response to its next boundary.
func (h *Handler) answerTools(w http.ResponseWriter, r *http.Request, p runtime.Principal, in runInput) {
	ps, ok := h.threadPending(w, r, p, in)
	if !ok {
		return
	}
	if len(ps.actions) == 0 {
		fail(w, http.StatusConflict, "no_pending_interaction", msgNoMatch)
		return
	}
	if !checkUser(w, in, ps) {
		return
	}
	var answers []answer
	for _, a := range ps.actions {
		found := false
		if a.Type == "client_tool" {
			callID := clientToolCallID(a, ps.rec.ResponseID)
			for _, t := range in.ToolAnswers {
				if t.ToolCallID == callID || t.ToolCallID == a.ID {
					answers = append(answers, answer{action: a, output: t.Output})
					found = true
					break
				}
			}
		}
		if !found {
			fail(w, http.StatusConflict, "interaction_pending", msgResolveFirst)
			return
		}
	}
	h.answerAndFollow(w, r, p, in, ps, answers)
}

// answerAndFollow records the answers, then streams the run: RUN_STARTED,
// the results of client tools answered by resume, and the response from
// where it waited to its next boundary. An answer refused because its wait
// is over (expired, answered elsewhere) ends the run with RUN_ERROR.
func (h *Handler) answerAndFollow(w http.ResponseWriter, r *http.Request, p runtime.Principal, in runInput, ps pendingSet, answers []answer) {
	ctx := r.Context()
	var res runtime.Resumption
	var conflict *runtime.Error
	cancelled := false
	for _, ans := range answers {
		var err error
		switch {
		case ans.action.Type == "human_approval":
			res, err = h.svc.AnswerApprovalWith(ctx, p, ans.action.ID, ans.decision)
		case ans.cancel:
			_, err = h.svc.CancelResponse(ctx, p, in.ThreadID, ps.rec.ResponseID)
			cancelled = true
		default:
			res, err = h.svc.AnswerClientTool(ctx, p, ans.action.ID, ans.output)
		}
		if err != nil {
			e := runtime.AsError(err)
			if !errors.Is(e, runtime.ErrConflict) {
				writeError(w, err)
				return
			}
			conflict = e
			break
		}
	}
	s, err := h.svc.GetSession(ctx, p, in.ThreadID)
	if err != nil {
		writeError(w, err)
		return
	}
	w.Header().Set("Harnest-Response-Id", ps.rec.ResponseID)
	w.Header().Set("Harnest-Session-Id", in.ThreadID)
	sw := sse.Start(w, h.keepAlive)
	defer sw.Close()
	em := newEmitter(in, s.State, func(b []byte) error { return sw.Event("", -1, b) }, h.newID)
	em.begin()
	switch {
	case conflict != nil:
		em.fail(conflict.Detail, conflict.Code)
		return
	case cancelled:
		em.finish(runtime.Event{Type: runtime.EventCompleted, ResponseID: ps.rec.ResponseID,
			Envelope: &runtime.Envelope{ID: ps.rec.ResponseID, EnvelopeBody: runtime.EnvelopeBody{Status: runtime.StatusCancelled}}}, "")
		return
	}
	for _, ans := range answers {
		if ans.viaResume && ans.action.Type == "client_tool" {
			em.toolResult(clientToolCallID(ans.action, ps.rec.ResponseID), ans.output)
		}
	}
	h.follow(ctx, p, em, res)
}

// follow streams a resumed response from where it waited to its next
// boundary. Events of its earlier segments are replayed into the emitter
// without being sent (the client has them), so state deltas and tool calls
// stay consistent. A client that goes away cancels the response, as
// closing a /responses stream does.
func (h *Handler) follow(ctx context.Context, p runtime.Principal, em *emitter, res runtime.Resumption) {
	var last *runtime.Event
	fn := func(f runtime.Frame) (bool, error) {
		n, err := f.Event()
		if err != nil {
			return false, nil
		}
		n, ok := typedEvent(n)
		if !ok {
			return false, nil
		}
		if f.Sequence <= res.After {
			em.replay(n)
			return false, nil
		}
		if isBoundary(n) {
			last = &n
			return true, nil
		}
		em.event(n)
		return false, em.err
	}
	err := h.svc.Follow(ctx, p, res.SessionID, res.ResponseID, -1, fn)
	if err != nil && errors.Is(err, runtime.ErrInvalid) && last == nil {
		// The log no longer holds the earlier segments: follow from the
		// wait without them.
		err = h.svc.Follow(ctx, p, res.SessionID, res.ResponseID, res.After, fn)
	}
	if err != nil || em.err != nil {
		if ctx.Err() != nil || em.err != nil {
			go h.cancel(p, res)
			return
		}
		e := runtime.AsError(err)
		em.fail(e.Detail, e.Code)
		return
	}
	if last == nil {
		em.fail("The response ended without a result", runtime.CodeInvocationFailed)
		return
	}
	code := ""
	if last.Type == runtime.EventError {
		code = h.failureCode(ctx, p, res)
	}
	em.finish(*last, code)
}

// failureCode reads the stable code of a failed response from its receipt.
func (h *Handler) failureCode(ctx context.Context, p runtime.Principal, res runtime.Resumption) string {
	env, err := h.svc.Receipt(ctx, p, res.SessionID, res.ResponseID)
	if err != nil || env.Error == nil {
		return runtime.CodeInvocationFailed
	}
	return env.Error.Code
}

// cancel cancels a resumed response whose client went away.
func (h *Handler) cancel(p runtime.Principal, res runtime.Resumption) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := h.svc.CancelResponse(ctx, p, res.SessionID, res.ResponseID); err != nil {
		h.log.Warn("agui: cannot cancel a response whose client went away", "responseId", res.ResponseID, "err", err)
	}
}
