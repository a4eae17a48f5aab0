package agui

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/harnest/harnest/runtime"
)

func TestStateDeltaOfReservedKeysOnlySendsNothing(t *testing.T) {
	var sent []string
	em := newEmitter(runInput{ThreadID: "t", RunID: "r", State: map[string]json.RawMessage{}}, nil,
		func(b []byte) error { sent = append(sent, string(b)); return nil }, func() string { return "id" })
	em.stateDelta(map[string]json.RawMessage{"_x": json.RawMessage(`1`), "temp:y": json.RawMessage(`2`)})
	if len(sent) != 0 {
		t.Fatalf("sent %q", sent)
	}
	em.stateDelta(map[string]json.RawMessage{"a": json.RawMessage(`1`)})
	if len(sent) != 2 || !strings.Contains(sent[0], `"snapshot":{}`) || !strings.Contains(sent[1], `"path":"/a"`) {
		t.Fatalf("sent %q", sent)
	}
}

// A resumed run that fails leaves the interrupt in a 1.0 client's list;
// the thread lets the client drop it by cancelling it.

// A retraction (another replica runs the turn again) closes the open text
// message, goes out as a CUSTOM event, and withdraws the lost attempt's
// messages from the run's messages snapshot.
func TestRetractionWithdrawsTheLostAttempt(t *testing.T) {
	var sent []string
	n := 0
	em := newEmitter(runInput{ThreadID: "t", RunID: "r", State: map[string]json.RawMessage{}}, nil,
		func(b []byte) error { sent = append(sent, string(b)); return nil }, func() string { n++; return "id" + string(rune('0'+n)) })
	em.event(runtime.Event{Type: "response.text.delta", Delta: "half an ans"})
	em.event(runtime.Event{Type: "response.retracted", Sequence: 2, Retracted: &runtime.Retraction{FromSequence: 1, ToSequence: 1, Text: "half an ans", Attempt: 2}})
	em.event(runtime.Event{Type: "response.text.delta", Delta: "the answer"})
	all := strings.Join(sent, "\n")
	if !strings.Contains(all, `"type":"TEXT_MESSAGE_END"`) || !strings.Contains(all, `"type":"CUSTOM"`) || !strings.Contains(all, `"name":"response.retracted"`) {
		t.Fatalf("sent %q", sent)
	}
	if snapshot := string(em.messagesJSON()); strings.Contains(snapshot, "half an ans") || !strings.Contains(snapshot, "the answer") {
		t.Fatalf("messages snapshot %s", snapshot)
	}
}

// A run maps the same whether its events come typed from the running
// response or read back from its log: JSON values that the log writes in
// encoding/json's form (compact, HTML characters escaped) reach the client
// in that form both ways.
func TestEventsMapTheSameFromTheStreamAndFromTheLog(t *testing.T) {
	events := []runtime.Event{
		{Type: runtime.EventCreated, Metadata: json.RawMessage(`{}`)},
		{Type: runtime.EventTextDelta, Delta: "<b>hi</b> & more", Agent: "a"},
		{Type: runtime.EventToolCall, ID: "call_1", Name: "search", Arguments: json.RawMessage(`{ "q" : "<b>&" }`)},
		{Type: runtime.EventToolResult, CallID: "call_1", Name: "search", Output: json.RawMessage(` {"html": "<i>"} `)},
		{Type: runtime.EventStateDelta, StateDelta: map[string]json.RawMessage{"k": json.RawMessage(`{ "x": "<" }`), "n": nil}},
		{Type: runtime.EventAgentActivity, Activity: "handoff", Target: "<b>"},
		{Type: runtime.EventCompleted, Envelope: &runtime.Envelope{ID: "resp_1", SessionID: "s1", EnvelopeBody: runtime.EnvelopeBody{
			Status: runtime.StatusRequiresAction, Output: []runtime.OutputItem{}, Metadata: json.RawMessage(`{}`),
			RequiredAction: &runtime.RequiredAction{Type: "client_tool", ID: "ct_1", CallID: "c2", Name: "pick",
				Arguments: json.RawMessage(`{ "html" : "<p>" }`), ExpiresAt: "2026-01-01T00:00:00Z"}}}},
	}
	run := func(fromLog bool) []string {
		var sent []string
		n := 0
		em := newEmitter(runInput{ThreadID: "t", RunID: "r", State: map[string]json.RawMessage{}}, nil,
			func(b []byte) error { sent = append(sent, string(b)); return nil }, func() string { n++; return fmt.Sprint("id", n) })
		em.now = func() time.Time { return time.UnixMilli(1) }
		for i, e := range events {
			e.Sequence, e.ResponseID, e.SessionID = i, "resp_1", "s1"
			if fromLog {
				b, err := e.JSON()
				if err != nil {
					t.Fatal(err)
				}
				if e, err = (runtime.Frame{Sequence: i, Type: e.Type, JSON: b}).Event(); err != nil {
					t.Fatal(err)
				}
			}
			if e.Type == runtime.EventCompleted {
				em.finish(e, "")
				continue
			}
			em.event(e)
		}
		return sent
	}
	typed, logged := run(false), run(true)
	if strings.Join(typed, "\n") != strings.Join(logged, "\n") {
		t.Fatalf("from the stream:\n%s\nfrom the log:\n%s", strings.Join(typed, "\n"), strings.Join(logged, "\n"))
	}
	all := strings.Join(typed, "\n")
	for _, want := range []string{`\\u003cb\\u003e\\u0026`, `\\u003ci\\u003e`, `\\u003cp\\u003e`} {
		if !strings.Contains(all, want) {
			t.Errorf("no %s in\n%s", want, all)
		}
	}
}

// A response.completed that carries an error code (cancelled, shut down)
// does not end the run as its boundary (the run ends from the response's
// failure, RUN_ERROR with that code, as it did when such a frame failed to
// decode); a denied one does.
func TestCompletedWithAnErrorCodeIsNoBoundary(t *testing.T) {
	cancelled := runtime.Event{Type: runtime.EventCompleted, Envelope: &runtime.Envelope{EnvelopeBody: runtime.EnvelopeBody{
		Status: runtime.StatusCancelled, Error: &runtime.EnvelopeError{Code: runtime.CodeShutdown}}}}
	denied := runtime.Event{Type: runtime.EventCompleted, Envelope: &runtime.Envelope{EnvelopeBody: runtime.EnvelopeBody{Status: runtime.StatusDenied}}}
	if _, ok := typedEvent(cancelled); ok {
		t.Error("a cancelled completion is taken as the boundary")
	}
	if _, ok := typedEvent(denied); !ok {
		t.Error("a denied completion is skipped")
	}
}
