package a2a

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/harnest/harnest/runtime"
)

// A steer the turn took is a working status update whose harnest metadata
// names it; the answer's artifact goes on. Read from the log it maps the
// same.
func TestMappingSteered(t *testing.T) {
	events := []runtime.Event{
		{Type: runtime.EventCreated},
		{Type: runtime.EventTextDelta, Delta: "Roses. "},
		{Type: runtime.EventSteered, Steered: &runtime.SteerInfo{ID: "steer_1", Input: "rhyme", Content: json.RawMessage(`"rhyme"`)}},
		{Type: runtime.EventTextDelta, Delta: "Violets."},
	}
	for _, fromLog := range []bool{false, true} {
		m := newTestMapper()
		var got []string
		var steered []byte
		for i, e := range events {
			e.Sequence = i
			f := frameOf(e)
			if fromLog {
				b, err := json.Marshal(e)
				if err != nil {
					t.Fatal(err)
				}
				f = frameFromJSON(e.Type, i, b)
			}
			evs := m.apply(f)
			if e.Type == runtime.EventSteered && len(evs) == 1 {
				steered, _ = json.Marshal(evs[0])
			}
			got = append(got, describe(evs))
		}
		want := []string{"status:WORKING", "artifact:Roses. ", "status:WORKING[steered]", "artifact:Violets.+append"}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Fatalf("from log %v: %q, want %q", fromLog, got, want)
		}
		if !strings.Contains(string(steered), `"steerId":"steer_1"`) || !strings.Contains(string(steered), `"input":"rhyme"`) {
			t.Errorf("from log %v: steered status update %s", fromLog, steered)
		}
	}
}
