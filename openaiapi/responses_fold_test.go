package openaiapi

import (
	"encoding/json"
	"testing"

	"github.com/harnest/harnest/runtime"
)

// folded runs events through a fold that writes, and returns the events
// written and the final response object.
func folded(t *testing.T, skipThrough int, events ...runtime.Event) ([]map[string]any, orResponse) {
	t.Helper()
	var out []map[string]any
	f := &fold{ref: responseRef{ResponseID: "resp_0123456789abcdef0123456789abcdef", SessionID: "s", After: -1, Created: 1},
		echo: echoed{Model: "m"}, skipThrough: skipThrough}
	f.write = func(typ string, seq int, data []byte, flush bool) error {
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatalf("%s: %v: %s", typ, err, data)
		}
		out = append(out, m)
		return nil
	}
	f.start()
	for _, e := range events {
		var env *runtime.EnvelopeBody
		if e.Envelope != nil {
			env = &e.Envelope.EnvelopeBody
		}
		if _, err := f.event(e, env); err != nil {
			t.Fatal(err)
		}
	}
	_ = f.send(true)
	return out, f.resource(f.final)
}

// A retraction (the attempt's replica was lost; another runs the turn
// again) withdraws the items the lost attempt started: the stream names
// them in response.retracted and the response's output leaves them out.
func TestFoldRetraction(t *testing.T) {
	completed := &runtime.Envelope{EnvelopeBody: runtime.EnvelopeBody{Status: runtime.StatusCompleted}}
	events, res := folded(t, -1,
		runtime.Event{Type: runtime.EventTextDelta, Sequence: 1, Delta: "lost "},
		runtime.Event{Type: runtime.EventTextDelta, Sequence: 2, Delta: "text"},
		runtime.Event{Type: runtime.EventRetracted, Sequence: 3, Retracted: &runtime.Retraction{FromSequence: 1, ToSequence: 2, Text: "lost text", Attempt: 2}},
		runtime.Event{Type: runtime.EventTextDelta, Sequence: 4, Delta: "kept"},
		runtime.Event{Type: runtime.EventCompleted, Sequence: 5, Envelope: completed},
	)
	var retracted map[string]any
	for i, e := range events {
		if e["sequence_number"] != float64(i) {
			t.Fatalf("event %d numbered %v", i, e["sequence_number"])
		}
		if e["type"] == "response.retracted" {
			retracted = e
		}
	}
	if retracted == nil || retracted["text"] != "lost text" || len(retracted["item_ids"].([]any)) != 1 {
		t.Fatalf("retracted = %v", retracted)
	}
	if res.OutputText != "kept" || len(res.Output) != 1 || res.Status != "completed" {
		t.Fatalf("response = %q %d items, %s", res.OutputText, len(res.Output), res.Status)
	}
	if got := events[len(events)-1]["type"]; got != "response.completed" {
		t.Fatalf("last event %v", got)
	}
}

// starting_after skips the events numbered up to it, and the rest are
// numbered as in the whole stream.
func TestFoldStartingAfter(t *testing.T) {
	completed := &runtime.Envelope{EnvelopeBody: runtime.EnvelopeBody{Status: runtime.StatusCompleted}}
	input := []runtime.Event{{Type: runtime.EventTextDelta, Sequence: 1, Delta: "a"}, {Type: runtime.EventTextDelta, Sequence: 2, Delta: "b"},
		{Type: runtime.EventCompleted, Sequence: 3, Envelope: completed}}
	all, _ := folded(t, -1, input...)
	tail, _ := folded(t, 4, input...)
	if len(tail) != len(all)-5 || tail[0]["sequence_number"] != float64(5) {
		t.Fatalf("tail %d of %d, first %v", len(tail), len(all), tail[0])
	}
	a, _ := json.Marshal(all[5:])
	b, _ := json.Marshal(tail)
	if string(a) != string(b) {
		t.Fatalf("tail differs:\n%s\n%s", a, b)
	}
}

// An ID names the segment, its session (any visible characters), when it
// was made and whether it runs in the background; anything else is not
// an ID of this door.
func TestResponseRef(t *testing.T) {
	ref := responseRef{ResponseID: "resp_0123456789abcdef0123456789abcdef", SessionID: "my session/é.x", After: 41, Created: 1796596755, Background: true}
	got, ok := parseResponseRef(ref.String())
	if !ok || got != ref {
		t.Fatalf("parse(%s) = %+v %v", ref, got, ok)
	}
	for _, bad := range []string{"", "resp_nope", "resp_0123456789abcdef0123456789abcdef", ref.ResponseID + ".1.0.x.cw", ref.ResponseID + ".1.0.f.",
		"resp_0123456789ABCDEF0123456789abcdef.1.0.f.cw"} {
		if _, ok := parseResponseRef(bad); ok {
			t.Errorf("parse(%q) accepted", bad)
		}
	}
}
