package openaiapi

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"

	"github.com/harnest/harnest/runtime"
)

// replayPage is how many logged events one read of a replay takes.
const replayPage = 500

// getResponse answers GET /v1/responses/{id}: the response object, folded
// from the logged events of its segment (so it is the same on every
// replica), or with ?stream=true its events, after starting_after.
func (d *door) getResponse(w http.ResponseWriter, r *http.Request, p runtime.Principal, id string) {
	ref, env, ok := d.lookup(w, r, p, id)
	if !ok {
		return
	}
	echo := d.echoOf(r.Context(), p, ref, env) // responses_record.go
	q := r.URL.Query()
	if q.Get("stream") == "true" || d.streamAsked(r) {
		after := -1
		if s := q.Get("starting_after"); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil || n < -1 {
				writeFailure(w, http.StatusBadRequest, invalid("starting_after", "invalid_value", "starting_after must be an integer: the sequence_number of the last event received"))
				return
			}
			after = n
		}
		d.streamFollow(w, r, p, ref, echo, after)
		return
	}
	d.writeReplayed(w, r, p, ref, echo, env)
}

// streamAsked reports a GET that asks for the stream the way the official
// SDKs do: a JSON body {"stream": true} (openai-go), or an Accept header
// that takes only text/event-stream.
func (d *door) streamAsked(r *http.Request) bool {
	if r.Header.Get("Accept") == "text/event-stream" {
		return true
	}
	if r.ContentLength == 0 || r.Body == nil {
		return false
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 4096))
	var asked struct {
		Stream bool `json:"stream"`
	}
	return err == nil && json.Unmarshal(body, &asked) == nil && asked.Stream
}

// lookup reads the response an ID names, for the caller; ok is false when
// an error was written.
func (d *door) lookup(w http.ResponseWriter, r *http.Request, p runtime.Principal, id string) (responseRef, runtime.Envelope, bool) {
	ref, ok := parseResponseRef(id)
	if !ok || ref.Ephemeral { // a response not stored is never found (responses_ephemeral.go)
		writeFailure(w, http.StatusNotFound, responseNotFound(id))
		return ref, runtime.Envelope{}, false
	}
	receipt, err := d.svc.GetResponse(r.Context(), p, ref.SessionID, ref.ResponseID)
	if err != nil {
		if runtime.AsError(err).Kind == runtime.ErrNotFound {
			writeFailure(w, http.StatusNotFound, responseNotFound(id))
		} else {
			writeError(w, err)
		}
		return ref, runtime.Envelope{}, false
	}
	var env runtime.Envelope
	_ = json.Unmarshal(receipt, &env)
	return ref, env, true
}

func responseNotFound(id string) failure {
	return failure{Type: typeInvalidRequest, Code: "response_not_found", Message: "Response with id " + quote(id) + " not found"}
}

// writeReplayed answers with the response object folded from the log. A
// segment the log does not end (it runs, or its events are no longer
// held) takes its state from the receipt.
func (d *door) writeReplayed(w http.ResponseWriter, r *http.Request, p runtime.Principal, ref responseRef, echo echoed, env runtime.Envelope) {
	f := &fold{ref: ref, echo: echo, skipThrough: -1}
	ended, err := d.replay(r, p, f)
	if err != nil {
		writeError(w, err)
		return
	}
	switch {
	case ended && f.final == "":
		d.endFollowed(r.Context(), p, f, nil)
	case !ended && env.Status != runtime.StatusInProgress && ref.After < 0:
		_ = f.complete(env.EnvelopeBody)
		d.endFollowed(r.Context(), p, f, nil)
	case !ended:
		writeResponse(w, f.resource("in_progress"))
		return
	}
	d.writeFolded(w, f, nil)
}

// replay folds the logged events of the segment; ended is true when they
// reached its boundary.
func (d *door) replay(r *http.Request, p runtime.Principal, f *fold) (ended bool, err error) {
	after := f.ref.After
	for range 10000 {
		frames, held, err := d.svc.LoggedEvents(r.Context(), p, f.ref.SessionID, f.ref.ResponseID, after, replayPage)
		if err != nil || !held {
			return false, err
		}
		for _, fr := range frames {
			after = fr.Sequence
			e, _ := fr.Event() // typed by the runtime
			env := e.Body()
			if done, err := f.event(e, env); done || err != nil {
				return true, err
			}
		}
		if len(frames) < replayPage {
			return false, nil
		}
	}
	return false, nil
}

// cancelResponse answers POST /v1/responses/{id}/cancel: the response is
// cancelled on whichever replica runs it, and the answer is its object
// (status cancelled, or how it ended before).
func (d *door) cancelResponse(w http.ResponseWriter, r *http.Request, p runtime.Principal, id string) {
	ref, _, ok := d.lookup(w, r, p, id)
	if !ok {
		return
	}
	receipt, err := d.svc.CancelResponse(r.Context(), p, ref.SessionID, ref.ResponseID)
	if err != nil {
		writeError(w, err)
		return
	}
	var env runtime.Envelope
	_ = json.Unmarshal(receipt, &env)
	d.writeReplayed(w, r, p, ref, d.echoOf(r.Context(), p, ref, env), env)
}
