package agui

import (
	"encoding/json"
	"strings"
	"testing"

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
