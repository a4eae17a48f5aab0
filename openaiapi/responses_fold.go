package openaiapi

import (
	"encoding/json"

	"github.com/harnest/harnest/internal/jsonwrite"
	"github.com/harnest/harnest/runtime"
)

// fold turns the harnest events of one segment into the Open Responses
// stream and the response object: created and in_progress first, then
// output_item.added, content_part.added, output_text.delta (or
// reasoning_text.delta, function_call_arguments.delta) and their done
// events per item, and one final event: response.completed,
// response.failed or response.incomplete. Its output depends only on the
// events it is given, so a replay of the logged events (GET, a stream
// resumed with starting_after, on any replica) numbers every event and
// names every item as the live stream did.
type fold struct {
	ref  responseRef
	echo echoed
	// write sends one event, flushing the stream when flush is set (nil:
	// the events are only folded, to build the response object). Events
	// wait in pending until send: the events one harnest event makes go
	// out in one write.
	write   func(typ string, sequence int, data []byte, flush bool) error
	pending []pendingEvent
	// skipThrough: events numbered up to it are not written
	// (starting_after); -1 writes all.
	skipThrough int

	seq   int // the next sequence_number
	items []*orItem
	open  *orItem // the message or reasoning item text deltas extend
	usage runtime.Usage
	used  bool // an agent_metadata event reported usage
	// final is the final status once the segment ended ("" before).
	final string
	// waiting is set when the segment ended waiting for an answer (a
	// function_call or an approval request).
	waiting bool
	errored *orError // a failure seen in the log, until finish words it
}

// pendingEvent is an encoded event not yet written.
type pendingEvent struct {
	typ      string
	sequence int
	data     []byte
}

// send writes the pending events once flush is set (no more events are
// queued behind them), flushing after the last one; until then they wait.
// (Written unflushed, they would wait in the stream's buffer for the next
// harnest event that makes one: a response.created could wait there for
// the agent's first word.)
func (f *fold) send(flush bool) error {
	if !flush {
		return nil
	}
	events := f.pending
	f.pending = f.pending[:0]
	for i, e := range events {
		if err := f.write(e.typ, e.sequence, e.data, flush && i == len(events)-1); err != nil {
			return err
		}
	}
	return nil
}

// start queues response.created and response.in_progress: the same
// snapshot, encoded once.
func (f *fold) start() {
	if f.write == nil {
		f.seq += 2
		return
	}
	r := f.resource("in_progress")
	b := r.appendJSON(nil)
	for _, typ := range []string{"response.created", "response.in_progress"} {
		f.emit(typ, func(o *jsonwrite.Object) {
			o.Key("response")
			o.B = append(o.B, b...)
		})
	}
}

// event folds one harnest event of the segment; done is true once the
// segment reached its boundary. env is the envelope of response.completed.
func (f *fold) event(e runtime.Event, env *runtime.EnvelopeBody) (done bool, err error) {
	switch e.Type {
	case runtime.EventTextDelta:
		return false, f.delta("message", e.Sequence, e.Delta)
	case runtime.EventThinkingDelta:
		return false, f.delta("reasoning", e.Sequence, e.Delta)
	case runtime.EventClientTool:
		if e.ClientTool != nil {
			return false, f.call(&orItem{Type: "function_call", ID: itemID("fc", f.ref, e.Sequence), CallID: callID(e.ClientTool), // responses_calls.go
				Name: e.ClientTool.Name, Arguments: argumentsString(e.ClientTool.Arguments), sequence: e.Sequence})
		}
	case runtime.EventApproval:
		if e.Approval != nil {
			return false, f.call(&orItem{Type: "mcp_approval_request", ID: e.Approval.ID, Name: e.Approval.Action,
				Arguments: argumentsString(e.Approval.Arguments), sequence: e.Sequence})
		}
	case runtime.EventAgentMetadata:
		if e.Usage != nil {
			f.used = true
			f.usage.InputTokens += e.Usage.InputTokens
			f.usage.OutputTokens += e.Usage.OutputTokens
			f.usage.TotalTokens += e.Usage.TotalTokens
		}
	case runtime.EventRetracted:
		if e.Retracted != nil {
			return false, f.retract(*e.Retracted)
		}
	case runtime.EventCompleted:
		if env != nil {
			return true, f.complete(*env)
		}
	case runtime.EventError:
		f.errored = &orError{Code: runtime.CodeInvocationFailed, Message: e.Error}
		return true, nil
	}
	return false, nil
}

// emit numbers and queues one event: fields are its members after type and
// sequence_number.
func (f *fold) emit(typ string, fields func(o *jsonwrite.Object)) error {
	n := f.seq
	f.seq++
	if f.write == nil || n <= f.skipThrough {
		return nil
	}
	o := jsonwrite.Begin(make([]byte, 0, 256))
	o.Str("type", typ)
	o.Int("sequence_number", n)
	fields(&o)
	f.pending = append(f.pending, pendingEvent{typ: typ, sequence: n, data: o.End()})
	return nil
}

// raw adds a member encoded by encoding/json.
func raw(o *jsonwrite.Object, key string, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		b = []byte("null")
	}
	o.Key(key)
	o.B = append(o.B, b...)
}

// resource is the response object as the fold has it.
func (f *fold) resource(status string) orResponse {
	var output []*orItem
	for _, it := range f.items {
		if !it.withdrawn {
			output = append(output, it)
		}
	}
	r := f.echo.resource(f.ref, status, output)
	if f.used {
		r.Usage = orUsageOf(f.usage)
	}
	return r
}

// index is the output_index of an item.
func (f *fold) index(it *orItem) int {
	for i, x := range f.items {
		if x == it {
			return i
		}
	}
	return -1
}

// add starts an item: output_item.added.
func (f *fold) add(it *orItem) error {
	f.items = append(f.items, it)
	it.Status = "in_progress"
	i := len(f.items) - 1
	return f.emit("response.output_item.added", func(o *jsonwrite.Object) {
		o.Int("output_index", i)
		o.Key("item")
		o.B = it.appendJSON(o.B)
	})
}

// delta extends the open message or reasoning item, starting one first
// when the open item is of the other kind (or none is open).
func (f *fold) delta(kind string, sequence int, text string) error {
	if f.open == nil || f.open.Type != kind {
		if err := f.closeOpen("completed"); err != nil {
			return err
		}
		prefix := "msg"
		if kind == "reasoning" {
			prefix = "rs"
		}
		it := &orItem{Type: kind, ID: itemID(prefix, f.ref, sequence), sequence: sequence}
		if err := f.add(it); err != nil {
			return err
		}
		f.open = it
		i := len(f.items) - 1
		if err := f.emitPart("response.content_part.added", it, i); err != nil {
			return err
		}
	}
	it := f.open
	it.text = append(it.text, text...)
	typ := "response.output_text.delta"
	if kind == "reasoning" {
		typ = "response.reasoning_text.delta"
	}
	i := f.index(it)
	return f.emit(typ, func(o *jsonwrite.Object) {
		appendContentRef(o, it, i)
		o.Str("delta", text)
		appendLogprobs(o, it)
	})
}

// closeOpen ends the open text item with status: its text done,
// content_part.done and output_item.done.
func (f *fold) closeOpen(status string) error {
	it := f.open
	if it == nil {
		return nil
	}
	f.open = nil
	it.Status = status
	i := f.index(it)
	typ := "response.output_text.done"
	if it.Type == "reasoning" {
		typ = "response.reasoning_text.done"
	}
	if err := f.emit(typ, func(o *jsonwrite.Object) {
		appendContentRef(o, it, i)
		o.Key("text")
		o.B = jsonwrite.AppendString(o.B, string(it.text))
		appendLogprobs(o, it)
	}); err != nil {
		return err
	}
	if err := f.emitPart("response.content_part.done", it, i); err != nil {
		return err
	}
	return f.itemDone(it, i)
}

// emitPart emits response.content_part.added or .done: the text item it,
// at output index i, with its one part.
func (f *fold) emitPart(typ string, it *orItem, i int) error {
	return f.emit(typ, func(o *jsonwrite.Object) {
		appendContentRef(o, it, i)
		o.Key("part")
		o.B = it.appendPart(o.B)
	})
}

// appendContentRef writes which content an event of a text item is about:
// the item, its output index i and its one content (index 0).
func appendContentRef(o *jsonwrite.Object, it *orItem, i int) {
	o.Str("item_id", it.ID)
	o.Int("output_index", i)
	o.Int("content_index", 0)
}

// appendLogprobs writes the empty logprobs of a message's text events
// (reasoning text has none).
func appendLogprobs(o *jsonwrite.Object, it *orItem) {
	if it.Type == "message" {
		o.Key("logprobs")
		o.B = append(o.B, "[]"...)
	}
}

func (f *fold) itemDone(it *orItem, i int) error {
	return f.emit("response.output_item.done", func(o *jsonwrite.Object) {
		o.Int("output_index", i)
		o.Key("item")
		o.B = it.appendJSON(o.B)
	})
}

// call adds a function_call (with its arguments as one delta) or an
// approval request, complete at once.
func (f *fold) call(it *orItem) error {
	if err := f.closeOpen("completed"); err != nil {
		return err
	}
	if err := f.add(it); err != nil {
		return err
	}
	i := len(f.items) - 1
	if it.Type == "function_call" {
		for _, typ := range []string{"response.function_call_arguments.delta", "response.function_call_arguments.done"} {
			if err := f.emit(typ, func(o *jsonwrite.Object) {
				o.Str("item_id", it.ID)
				o.Int("output_index", i)
				if typ == "response.function_call_arguments.delta" {
					o.Str("delta", it.Arguments)
				} else {
					o.Str("name", it.Name)
					o.Str("arguments", it.Arguments)
				}
			}); err != nil {
				return err
			}
		}
	}
	it.Status = "completed"
	return f.itemDone(it, i)
}

// retract withdraws the items that an interrupted attempt started (the
// replica running it was lost and another one runs the turn again): they
// leave the response's output, and the harnest extension event
// response.retracted names them, so a client can take their text back.
func (f *fold) retract(r runtime.Retraction) error {
	if err := f.closeOpen("incomplete"); err != nil {
		return err
	}
	var ids []string
	for _, it := range f.items {
		if !it.withdrawn && it.sequence >= r.FromSequence && it.sequence <= r.ToSequence {
			it.withdrawn = true
			ids = append(ids, it.ID)
		}
	}
	if ids == nil {
		ids = []string{}
	}
	return f.emit("response.retracted", func(o *jsonwrite.Object) {
		raw(o, "item_ids", ids)
		o.Str("text", r.Text)
		o.Int("attempt", r.Attempt)
	})
}

// complete ends the segment as the envelope of response.completed says:
// an answer, a wait for a client tool or an approval (both completed: the
// output's function_call or mcp_approval_request says what is needed), a
// cancellation or a denial.
func (f *fold) complete(env runtime.EnvelopeBody) error {
	status, typ := "completed", "response.completed"
	var details *incompleteDetails
	f.waiting = env.Status == runtime.StatusRequiresAction
	switch env.Status {
	case runtime.StatusCancelled:
		status, typ, details = "cancelled", "response.incomplete", &incompleteDetails{Reason: "cancelled"}
	case runtime.StatusDenied:
		status, typ, details = "incomplete", "response.incomplete", &incompleteDetails{Reason: "approval_denied"}
	case runtime.StatusFailed:
		code := runtime.CodeInvocationFailed
		if env.Error != nil {
			code = env.Error.Code
		}
		f.errored = &orError{Code: code, Message: failureMessage(code)}
		return f.finish()
	}
	itemStatus := "completed"
	if details != nil {
		itemStatus = "incomplete"
	}
	if err := f.closeOpen(itemStatus); err != nil {
		return err
	}
	f.final = status
	if f.write == nil {
		f.seq++
		return nil
	}
	r := f.resource(status)
	r.IncompleteDetails = details
	return f.emit(typ, func(o *jsonwrite.Object) {
		o.Key("response")
		o.B = r.appendJSON(o.B)
	})
}

// finish ends a segment that failed (f.errored) with response.failed.
func (f *fold) finish() error {
	if f.final != "" {
		return nil
	}
	if f.errored == nil {
		f.errored = &orError{Code: runtime.CodeInvocationFailed, Message: failureMessage(runtime.CodeInvocationFailed)}
	}
	if err := f.closeOpen("incomplete"); err != nil {
		return err
	}
	f.final = "failed"
	if f.write == nil {
		f.seq++
		return nil
	}
	r := f.resource("failed")
	r.Error = f.errored
	return f.emit("response.failed", func(o *jsonwrite.Object) {
		o.Key("response")
		o.B = r.appendJSON(o.B)
	})
}

// failureMessage says what a failure code means.
func failureMessage(code string) string {
	switch code {
	case runtime.CodeTimedOut:
		return "The agent did not answer within the response timeout"
	case runtime.CodeNoOutput:
		return "The agent completed without an answer"
	case runtime.CodeReplicaLost:
		return "The replica running the response was lost"
	case runtime.CodeStoreUnavailable:
		return "The state store did not answer; retry"
	case runtime.CodeShutdown:
		return "The server is shutting down; retry"
	}
	return "The agent failed (" + code + ")"
}

// argumentsString is a JSON object as the string the specification's
// arguments are ("{}" for none).
func argumentsString(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "{}"
	}
	return string(jsonwrite.Compact(raw))
}
