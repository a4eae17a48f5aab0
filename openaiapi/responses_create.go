package openaiapi

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/harnest/harnest/internal/sse"
	"github.com/harnest/harnest/runtime"
)

// createResponse answers POST /v1/responses: a new turn (in the session
// previous_response_id or conversation names, or a new one), or the
// answer to what a response waits for, which continues it. The answer is
// the response object (JSON), the stream of the specification's events, or
// for a background request the response object as it is now.
func (d *door) createResponse(w http.ResponseWriter, r *http.Request, p runtime.Principal) {
	body, f, status := d.readBody(w, r)
	if status != 0 {
		writeFailure(w, status, f)
		return
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(body, &obj); err != nil || obj == nil {
		writeFailure(w, http.StatusBadRequest, failure{Type: typeInvalidRequest, Code: "invalid_json",
			Message: "The request body must be a JSON object (an Open Responses create request)"})
		return
	}
	req, f, status := d.parseCreate(obj)
	if status != 0 {
		writeFailure(w, status, f)
		return
	}
	if req.Previous != nil {
		if _, err := d.svc.GetResponse(r.Context(), p, req.Previous.SessionID, req.Previous.ResponseID); err != nil {
			writePreviousError(w, err, req.Echo.PreviousResponseID)
			return
		}
	}
	if req.Answer != nil {
		d.answerWait(w, r, p, req)
		return
	}
	if req.Echo.Background && !req.Stream {
		req.Turn.Stream = false // nobody reads its events here
	}
	if err := typedTurn(d.svc.Contract(), &req.Turn); err != nil { // typed_input.go
		writeError(w, err)
		return
	}
	if !req.Echo.Store { // responses_ephemeral.go
		session, err := d.ephemeralSession(r.Context(), p)
		if err != nil {
			writeError(w, err)
			return
		}
		req.Turn.SessionID = session
	}
	resp, err := d.svc.StartResponse(r.Context(), p, req.Turn)
	if err != nil {
		if !req.Echo.Store {
			d.dropEphemeral(r.Context(), p, responseRef{SessionID: req.Turn.SessionID, Ephemeral: true}, false, nil)
		}
		writeError(w, err)
		return
	}
	ref := responseRef{ResponseID: resp.ID, SessionID: resp.SessionID, After: -1, Created: time.Now().Unix(),
		Background: req.Echo.Background, Ephemeral: !req.Echo.Store}
	d.keepRequest(r.Context(), p, ref, req) // responses_record.go
	w.Header().Set(SessionHeader, resp.SessionID)
	switch {
	case req.Stream:
		f := d.streamLive(w, resp, ref, req.Echo)
		d.dropEphemeral(r.Context(), p, ref, f.waiting, resp.Done())
	case req.Echo.Background:
		writeResponse(w, req.Echo.resource(ref, "queued", nil))
	default:
		fo := &fold{ref: ref, echo: req.Echo, skipThrough: -1}
		out := foldLive(fo, resp)
		// A response not stored is answered once nothing of it is left.
		d.dropEphemeral(r.Context(), p, ref, fo.waiting, resp.Done())
		d.writeFolded(w, fo, out.Err)
	}
}

// foldLive folds a response's first segment as its events arrive.
func foldLive(f *fold, resp *runtime.Response) runtime.Outcome {
	return resp.Each(func(e runtime.Event) error {
		if f.final != "" || f.errored != nil {
			return nil
		}
		env := e.Body()
		if _, err := f.event(e, env); err != nil {
			return err
		}
		if f.write == nil {
			return nil
		}
		return f.send(resp.Queued() == 0)
	})
}

// writeFolded answers with the response object a fold ended with. A
// response that failed is still a 200 with status "failed" and its error,
// as the specification has it; failed only ends a segment without its
// final event (a store failure, a replica that lost the run).
func (d *door) writeFolded(w http.ResponseWriter, f *fold, failed *runtime.Error) {
	if f.final == "" {
		if failed != nil && f.errored == nil {
			f.errored = &orError{Code: failed.Code, Message: failed.Detail}
		} else if failed != nil {
			f.errored.Code, f.errored.Message = failed.Code, failureMessage(failed.Code)
		}
		_ = f.finish()
	}
	res := f.resource(f.final)
	if f.final == "failed" {
		res.Error = f.errored
	}
	if f.final == "cancelled" {
		res.IncompleteDetails = &incompleteDetails{Reason: "cancelled"}
	}
	if f.final == "incomplete" {
		res.IncompleteDetails = &incompleteDetails{Reason: "approval_denied"}
	}
	now := time.Now().Unix()
	res.CompletedAt = &now
	writeResponse(w, res)
}

// streamLive writes a response's first segment as the specification's
// events, as they happen, and returns the fold it ended with. A client that goes away cancels the response,
// unless it runs in the background (then GET /v1/responses/{id}?stream=true
// &starting_after=N picks the stream up again, on any replica).
func (d *door) streamLive(w http.ResponseWriter, resp *runtime.Response, ref responseRef, echo echoed) *fold {
	sw := sse.Open(w, d.keepAlive)
	defer sw.Close()
	f := &fold{ref: ref, echo: echo, skipThrough: -1, write: sw.Write}
	f.start()
	if f.send(resp.Queued() == 0) != nil {
		resp.Each(func(runtime.Event) error { return errGone })
		return f
	}
	out := foldLive(f, resp)
	if f.final != "" {
		return f
	}
	code := runtime.CodeInvocationFailed
	if out.Err != nil {
		code = out.Err.Code
	}
	if f.errored == nil {
		f.errored = &orError{}
	}
	f.errored.Code, f.errored.Message = code, failureMessage(code)
	if out.Err != nil && out.Err.Kind == runtime.ErrCancelled {
		// A cancelled response whose stream missed its final frame.
		f.errored.Message = "The response was cancelled"
	}
	_ = f.finish()
	_ = f.send(true)
	return f
}

// errGone stops a stream whose client went away.
var errGone = context.Canceled

// writePreviousError answers a previous_response_id that names no response
// of the caller's.
func writePreviousError(w http.ResponseWriter, err error, id string) {
	e := runtime.AsError(err)
	if e.Kind != runtime.ErrNotFound {
		writeError(w, err)
		return
	}
	writeFailure(w, http.StatusNotFound, failure{Type: typeInvalidRequest, Code: "previous_response_not_found", Param: ptr("previous_response_id"),
		Message: "Previous response with id " + quote(id) + " not found"})
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }
