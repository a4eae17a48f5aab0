package agui

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestStateDeltaOfReservedKeysOnlySendsNothing(t *testing.T) {
	var sent []string
	em := newEmitter(runInput{ThreadID: "t", RunID: "r", State: map[string]json.RawMessage{}}, nil,
		func(b []byte) error { sent = append(sent, string(b)); return nil }, func() string { return "id" })
	em.stateDelta(json.RawMessage(`{"_x":1,"temp:y":2}`))
	if len(sent) != 0 {
		t.Fatalf("sent %q", sent)
	}
	em.stateDelta(json.RawMessage(`{"a":1}`))
	if len(sent) != 2 || !strings.Contains(sent[0], `"snapshot":{}`) || !strings.Contains(sent[1], `"path":"/a"`) {
		t.Fatalf("sent %q", sent)
	}
}

// A resumed run that fails leaves the interrupt in a 1.0 client's list;
// the thread lets the client drop it by cancelling it.
