package openaiapi

import (
	"encoding/json"
	"net/http"

	"github.com/harnest/harnest/internal/httpapi"
	"github.com/harnest/harnest/internal/sse"
	"github.com/harnest/harnest/runtime"
)

// chunk is one frame of a streamed answer: object "chat.completion.chunk".
type chunk struct {
	ID      string        `json:"id"`
	Object  string        `json:"object"`
	Created int64         `json:"created"`
	Model   string        `json:"model"`
	Choices []chunkChoice `json:"choices"` // empty on the usage chunk
	Usage   *usage        `json:"usage,omitempty"`
}

// chunkChoice is the one choice of a chunk.
type chunkChoice struct {
	Index        int     `json:"index"`
	Delta        delta   `json:"delta"`
	FinishReason *string `json:"finish_reason"` // null until the last choice chunk
}

// delta is what a chunk adds to the message.
type delta struct {
	Role             string  `json:"role,omitempty"`
	Content          *string `json:"content,omitempty"`
	ReasoningContent string  `json:"reasoning_content,omitempty"`
}

// chunkWriter writes the chunks of one streamed completion.
type chunkWriter struct {
	sw      *sse.Writer
	resp    *runtime.Response
	id      string
	created int64
	model   string
	wrote   bool // some content was sent
	gone    bool // a write failed: the client went away
}

// stream writes the response's first segment as chunks: the role, then
// content (and reasoning_content, when the output policy shows thinking)
// as deltas arrive, then the last chunk with finish_reason, the usage
// chunk when asked for, and data: [DONE]. A response that fails ends the
// stream with an error frame ({"error": {...}}) instead. A client that
// goes away cancels the response.
func (d *door) stream(w http.ResponseWriter, resp *runtime.Response, created int64, includeUsage bool) {
	sw := sse.Open(w, d.keepAlive) // the role chunk follows at once
	defer sw.Close()
	cw := &chunkWriter{sw: sw, resp: resp, id: completionID(resp.ID), created: created, model: d.model}
	var env *runtime.Envelope
	out := resp.Each(func(e runtime.Event) error {
		switch e.Type {
		case runtime.EventCreated:
			empty := ""
			return cw.choice(delta{Role: "assistant", Content: &empty}, nil)
		case runtime.EventTextDelta:
			cw.wrote = cw.wrote || e.Delta != ""
			return cw.choice(delta{Content: &e.Delta}, nil)
		case runtime.EventThinkingDelta:
			return cw.choice(delta{ReasoningContent: e.Delta}, nil)
		case runtime.EventCompleted:
			env = e.Envelope
		}
		return nil
	})
	if cw.gone {
		d.log.Debug("chat completion stream closed by the client; the response was cancelled", "responseId", resp.ID)
		return
	}
	// The last chunk waits for the outcome: [DONE] only once the response
	// is recorded as what the stream says.
	if out.Err == nil && env == nil {
		env = &out.Envelope
	}
	if out.Err != nil {
		cw.fail(out.Err)
		return
	}
	cw.finish(*env, includeUsage)
}

// finish writes the end of a stream that reached its boundary: for a
// response waiting for an answer, what is needed, then the finish reason,
// the usage chunk and [DONE].
func (cw *chunkWriter) finish(env runtime.Envelope, includeUsage bool) {
	if env.Status == runtime.StatusRequiresAction && env.RequiredAction != nil {
		text := actionText(env.RequiredAction, env.SessionID)
		if cw.wrote {
			text = "\n\n" + text
		}
		if cw.choice(delta{Content: &text}, nil) != nil {
			return
		}
	} else if env.Status != runtime.StatusCompleted {
		cw.fail(runtime.Errorf(runtime.ErrAgentFailed, "unexpected_status", "The response ended as %s without an answer", env.Status))
		return
	}
	stop := "stop"
	if cw.choice(delta{}, &stop) != nil {
		return
	}
	if u := usageOf(env.Usage); includeUsage && u != nil {
		if cw.write(chunk{ID: cw.id, Object: "chat.completion.chunk", Created: cw.created, Model: cw.model,
			Choices: []chunkChoice{}, Usage: u}, true) != nil {
			return
		}
	}
	_ = cw.sw.Write("", -1, []byte("[DONE]"), true)
}

// choice writes a chunk with one choice.
func (cw *chunkWriter) choice(d delta, finishReason *string) error {
	return cw.write(chunk{ID: cw.id, Object: "chat.completion.chunk", Created: cw.created, Model: cw.model,
		Choices: []chunkChoice{{Delta: d, FinishReason: finishReason}}}, cw.resp.Queued() == 0)
}

// write sends one chunk; flush is false while more events wait, so that a
// burst goes out in one write.
func (cw *chunkWriter) write(c chunk, flush bool) error {
	b, err := json.Marshal(c)
	if err == nil {
		err = cw.sw.Write("", -1, b, flush)
	}
	cw.gone = cw.gone || err != nil
	return err
}

// fail ends the stream with an error frame in OpenAI's shape, as OpenAI's
// clients read it mid-stream.
func (cw *chunkWriter) fail(err error) {
	e := runtime.AsError(err)
	b, merr := json.Marshal(errorBody{Error: failureOf(e, httpapi.StatusOf(e))})
	if merr != nil {
		return
	}
	_ = cw.sw.Write("", -1, b, true)
}
