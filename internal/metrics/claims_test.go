package metrics

import (
	"testing"

	"github.com/harnest/harnest/runtime"

	dto "github.com/prometheus/client_model/go"
)

// The runtime's claims of lost replicas' runs are counted by event.
func TestRunClaimsAreCounted(t *testing.T) {
	m := New(Options{})
	d, ok := m.Observer().(runtime.DurabilityObserver)
	if !ok {
		t.Fatal("the observer does not count claims")
	}
	d.RunClaimed()
	d.RunClaimed()
	d.RunResumed()
	d.WriteFenced()
	h, ok := m.Observer().(runtime.HandoffObserver)
	if !ok {
		t.Fatal("the observer does not count hand-offs")
	}
	h.RunHandedOff()
	for event, want := range map[string]float64{"claimed": 2, "resumed": 1, "fenced": 1, "handed_off": 1} {
		var got dto.Metric
		if err := m.runClaims.WithLabelValues(event).Write(&got); err != nil {
			t.Fatal(err)
		}
		if got.GetCounter().GetValue() != want {
			t.Errorf("%s: %v, want %v", event, got.GetCounter().GetValue(), want)
		}
	}
}
