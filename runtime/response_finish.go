package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/harnest/harnest/store"
)

// A response's end: its outcome decided, its last event emitted and its
// final step recorded.

// finish decides the outcome, emits the last event and commits the final
// step.
func (r *Response) finish(runErr error) {
	s := r.svc
	r.mu.Lock()
	env := r.envelope(StatusCompleted)
	env.Output = r.out.output()
	if env.Output == nil {
		env.Output = []OutputItem{}
	}
	env.OutputText = outputText(env.Output, r.out.text)
	env.Usage = r.out.usage
	env.ApprovalID, env.ClientToolID = r.resumedBy.approval, r.resumedBy.clientTool
	r.mu.Unlock()

	var fail *Error
	switch {
	case runErr == nil && s.contract.OutputSchema() != nil:
		fail = s.checkOutput(r.ID, &env) // contract.go: the answer is the result, or output_invalid
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
		commit.Messages = r.transcriptMessages(env, commit.Now)
	} else {
		commit.Messages = r.keptOnInterrupt(fail, env, commit.Now) // busy.go
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
	commit.Receipt, commit.Usage, commit.UsageDay = body, usageLines(s.backend, &env), store.UsageDate(s.now()) // usage.go

	var steersLeft bool
	if r.steers != nil {
		commit.SteersLeft = &steersLeft
	}
	// The caller may be gone; the receipt is still recorded.
	err := r.record(&commit)
	if errors.Is(err, store.ErrFenced) {
		// Another replica claimed the run and goes on with it: nothing of
		// this attempt is the turn's, and its receipt is that replica's.
		s.log.Warn("the response was claimed by another replica; this attempt's end is not recorded", "responseId", r.ID)
		r.limits.release()
		r.detachStream()
		r.reachBoundary(Outcome{Envelope: r.failedEnvelope(errClaimed), Err: errClaimed})
		return
	}
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
	ours := true // the recorded receipt is this outcome's (usage.go counts it)
	if errors.Is(err, store.ErrReceiptFinal) {
		// Recorded final meanwhile (by a sweeper that took this replica for
		// dead): that receipt stands, and callers see it.
		fail, env, body = r.storedOutcome()
		err, ours = nil, false
	}
	if err != nil {
		s.log.Error("cannot record response", "responseId", r.ID, "err", err)
		if fail == nil {
			fail = s.storeFailure(err).(*Error)
		}
	}
	if err == nil && steersLeft {
		r.queueLeftovers() // steers it never took become the session's next messages (steer_leftover.go)
	}
	r.sendWebhook(commit.Events, body, err)
	// A queued response takes the session (queue.go).
	s.handOnQueue(r)
	r.reportEnd(env, fail, countedUsage(err == nil && ours, commit.Usage))
	r.limits.release() // before the caller has its answer, so its next turn may start at once
	r.detachStream()
	r.reachBoundary(Outcome{Envelope: env, Body: body, Err: fail})
}

// outputText is the answer's text: the text deltas joined. When the output
// has one message item and nothing else of text, its string is that
// item's, shared rather than copied.
func outputText(output []OutputItem, text []byte) string {
	if len(output) == 1 && output[0].Type == "message" && len(output[0].Content) == 1 && output[0].Content[0].Text == string(text) {
		return output[0].Content[0].Text
	}
	return string(text)
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
