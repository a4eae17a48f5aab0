package openaiapi

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/harnest/harnest/internal/sse"
	"github.com/harnest/harnest/runtime"
)

// answerWait answers what a response waits for (a function_call_output
// names the client tool request by its call_id, an mcp_approval_response
// the approval), on whichever replica runs it, and answers with the
// continuation: a new response ID for the events after the answer.
func (d *door) answerWait(w http.ResponseWriter, r *http.Request, p runtime.Principal, req createRequest) {
	a := req.Answer
	var res runtime.Resumption
	var err error
	if a.CallID != "" {
		res, err = d.svc.AnswerClientTool(r.Context(), p, a.CallID, a.Output)
	} else {
		res, err = d.svc.AnswerApproval(r.Context(), p, a.ApprovalID, a.Approve)
	}
	if err != nil {
		writeError(w, err)
		return
	}
	ref := responseRef{ResponseID: res.ResponseID, SessionID: res.SessionID, After: res.After, Created: time.Now().Unix(), Background: req.Echo.Background}
	// The continuation of a response that is not stored is not stored
	// either (responses_ephemeral.go), whatever the answer says.
	ref.Ephemeral = isEphemeral(res.SessionID) && !ref.Background
	req.Echo.Store = !ref.Ephemeral
	d.keepRequest(r.Context(), p, ref, req) // responses_record.go
	w.Header().Set(SessionHeader, res.SessionID)
	switch {
	case req.Stream:
		f := d.streamFollow(w, r, p, ref, req.Echo, -1)
		d.dropEphemeral(r.Context(), p, ref, f.waiting, nil)
	case req.Echo.Background:
		writeResponse(w, req.Echo.resource(ref, "in_progress", nil))
	default:
		f := &fold{ref: ref, echo: req.Echo, skipThrough: -1}
		err := d.follow(r.Context(), p, f)
		d.endFollowed(r.Context(), p, f, err)
		d.dropEphemeral(r.Context(), p, ref, f.waiting, nil)
		d.writeFolded(w, f, nil)
	}
}

// follow folds the segment's logged events, then its live ones, until the
// segment ends (from any replica).
func (d *door) follow(ctx context.Context, p runtime.Principal, f *fold) error {
	return d.svc.Follow(ctx, p, f.ref.SessionID, f.ref.ResponseID, f.ref.After, func(fr runtime.Frame) (bool, error) {
		e, _ := fr.Event() // typed by the runtime
		env := e.Body()
		done, err := f.event(e, env)
		if err == nil && f.write != nil {
			err = f.send(true)
		}
		return done, err
	})
}

// streamFollow writes a segment's events from the log, then live, skipping
// those numbered up to startingAfter: a stream resumed after a dropped
// connection, or the continuation after an answer. It returns the fold it
// ended with.
func (d *door) streamFollow(w http.ResponseWriter, r *http.Request, p runtime.Principal, ref responseRef, echo echoed, startingAfter int) *fold {
	sw := sse.Start(w, d.keepAlive)
	defer sw.Close()
	f := &fold{ref: ref, echo: echo, skipThrough: startingAfter, write: sw.Write}
	f.start()
	if f.send(true) != nil {
		return f
	}
	err := d.follow(r.Context(), p, f)
	if r.Context().Err() != nil {
		return f
	}
	d.endFollowed(r.Context(), p, f, err)
	_ = f.send(true)
	return f
}

// endFollowed ends a fold whose segment ended without a final event (an
// error frame, or a follow that failed): the receipt says the code.
func (d *door) endFollowed(ctx context.Context, p runtime.Principal, f *fold, followErr error) {
	if f.final != "" {
		return
	}
	if f.errored == nil {
		f.errored = &orError{Code: runtime.CodeInvocationFailed}
	}
	if followErr != nil {
		e := runtime.AsError(followErr)
		f.errored.Code, f.errored.Message = e.Code, e.Detail
		_ = f.finish()
		return
	}
	if receipt, err := d.svc.GetResponse(context.WithoutCancel(ctx), p, f.ref.SessionID, f.ref.ResponseID); err == nil {
		var env runtime.Envelope
		if json.Unmarshal(receipt, &env) == nil && env.Error != nil {
			f.errored.Code = env.Error.Code
		}
	}
	f.errored.Message = failureMessage(f.errored.Code)
	_ = f.finish()
}
