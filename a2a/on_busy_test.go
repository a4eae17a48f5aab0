package a2a_test

import (
	"strings"
	"testing"
)

// The message's metadata may carry onBusy, the busy-session strategy of
// its turn (the runtime's onBusy): a value that names none is refused as
// invalid params, naming it.
func TestMessageMetadataOnBusy(t *testing.T) {
	h := newHarness(t, setup{})
	m := msg10("hi")
	m["metadata"] = map[string]any{"onBusy": "later"}
	r := h.rpc("1.0", "SendMessage", map[string]any{"message": m})
	if !strings.Contains(string(r.Body), `"error"`) || !strings.Contains(string(r.Body), "onBusy") {
		t.Fatalf("a wrong onBusy: %s", r.Body)
	}
	m = msg10("hello")
	m["metadata"] = map[string]any{"onBusy": "enqueue"}
	if r := h.rpc("1.0", "SendMessage", map[string]any{"message": m}); strings.Contains(string(r.Body), `"error"`) {
		t.Fatalf("onBusy enqueue: %s", r.Body)
	}
}
