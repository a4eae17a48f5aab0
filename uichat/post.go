package uichat

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/harnest/harnest/internal/httpapi"
	"github.com/harnest/harnest/internal/sse"
	"github.com/harnest/harnest/runtime"
)

// transport is the metrics label of the turns this door starts.
const transport = "usechat"

// post answers POST /api/chat: a new turn for the newest user message, in
// the session the chat's ID names (made on the first message), or the
// answer to the tool or approval the chat's response waits for. The answer
// is the UI message stream of the turn, as it runs. The turn runs in the
// background: a client that goes away (a reload) does not stop it, and
// GET /api/chat/{id}/stream picks it up again on any replica.
func (d *door) post(w http.ResponseWriter, r *http.Request, p runtime.Principal) {
	body, berr := httpapi.ReadUTF8(w, r, d.maxBody)
	if berr != nil {
		httpapi.Fail(w, berr.Status, berr.Code, berr.Detail)
		return
	}
	c, rerr := parseChat(body)
	if rerr != nil {
		httpapi.WriteError(w, rerr)
		return
	}
	m := c.last()
	if m.Role == "assistant" {
		d.answer(w, r, p, c, m)
		return
	}
	input, parts := userInput(m)
	if strings.TrimSpace(input) == "" && len(parts) == 0 {
		httpapi.Fail(w, http.StatusBadRequest, "invalid_request", "The newest user message has no text: send a text part")
		return
	}
	parts, err := typedParts(d.svc.Contract(), input, parts) // typed_input.go
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	req := runtime.ResponseRequest{
		Input: input, Parts: parts, SessionID: c.ID, Metadata: c.Metadata,
		Stream: true, Background: true, Transport: transport, ClientTools: c.Tools,
	}
	resp, err := d.svc.StartResponse(r.Context(), p, req)
	if err != nil && runtime.AsError(err).Code == "session_not_found" { // the chat's first message: make its session
		if err = d.ensureSession(r.Context(), p, c.ID); err == nil {
			resp, err = d.svc.StartResponse(r.Context(), p, req)
		}
	}
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	d.streamLive(w, r, resp)
}

// ensureSession makes the chat's session on its first message.
func (d *door) ensureSession(ctx context.Context, p runtime.Principal, id string) error {
	_, err := d.svc.CreateSession(ctx, p, id, nil)
	if errors.Is(err, runtime.ErrConflict) { // made meanwhile by another request
		return nil
	}
	return err
}

// openStream starts the UI message stream's answer.
func (d *door) openStream(w http.ResponseWriter, sessionID string) *sse.Writer {
	h := w.Header()
	h.Set(StreamHeader, "v1")
	h.Set(sessionHeader, sessionID)
	return sse.Open(w, d.keepAlive)
}

// streamLive writes a new turn's first segment as it runs. A client that
// goes away stops being written to; the turn goes on.
func (d *door) streamLive(w http.ResponseWriter, r *http.Request, resp *runtime.Response) {
	sw := d.openStream(w, resp.SessionID)
	defer sw.Close()
	out := &batch{sw: sw}
	enc := newEncoder(resp.ID, out.add)
	_ = enc.start()
	if out.send(resp.Queued() == 0) != nil {
		resp.Each(func(runtime.Event) error { return errGone })
		return
	}
	var done bool
	resp.Each(func(e runtime.Event) error {
		if done {
			return nil
		}
		if r.Context().Err() != nil {
			return errGone
		}
		env := e.Body()
		var err error
		if done, err = enc.event(e, env); err != nil || done {
			return err
		}
		return out.send(resp.Queued() == 0)
	})
	if r.Context().Err() == nil {
		d.end(out, enc, resp.SessionID)
	}
}

// batch gathers the chunks of one event, to write them in one flush.
type batch struct {
	sw     *sse.Writer
	chunks [][]byte
}

func (b *batch) add(chunk []byte) error {
	b.chunks = append(b.chunks, chunk)
	return nil
}

// send writes the gathered chunks, in one flush, once flush is set (no
// more events are queued); until then they wait in the batch.
func (b *batch) send(flush bool) error {
	if !flush {
		return nil
	}
	for i, c := range b.chunks {
		if err := b.sw.Write("", -1, c, i == len(b.chunks)-1); err != nil {
			b.chunks = b.chunks[:0]
			return err
		}
	}
	b.chunks = b.chunks[:0]
	return nil
}

// end writes the finish chunks and [DONE].
func (d *door) end(out *batch, enc *encoder, sessionID string) {
	_ = enc.finish(sessionID)
	_ = out.add(doneMarker)
	_ = out.send(true)
}

// doneMarker ends a UI message stream.
var doneMarker = []byte("[DONE]")

// errGone stops a stream whose client went away.
var errGone = context.Canceled
