package runtime

import (
	"reflect"
	"testing"

	"github.com/harnest/harnest/store"
)

// TestUsageLines: what a final envelope adds to the usage counters.
func TestUsageLines(t *testing.T) {
	meta := func(model string, u *Usage) OutputItem {
		return OutputItem{Type: "agent_metadata", Model: model, Usage: u}
	}
	for _, c := range []struct {
		name    string
		backend string
		env     Envelope
		want    []store.UsageLine
	}{
		{"no usage: the turn alone", "echo", Envelope{}, []store.UsageLine{{Backend: "echo", Turns: 1}}},
		{"no backend named", "", Envelope{}, []store.UsageLine{{Backend: "agent", Turns: 1}}},
		{"per model, the turn on the first", "model", Envelope{EnvelopeBody: EnvelopeBody{
			Usage: &Usage{InputTokens: 16, OutputTokens: 8, CostMicros: 9},
			Output: []OutputItem{
				meta("b", &Usage{InputTokens: 5, OutputTokens: 1}),
				{Type: "message"},
				meta("a", &Usage{InputTokens: 10, OutputTokens: 5, CostMicros: 9}),
				meta("b", &Usage{InputTokens: 1, OutputTokens: 2}),
				meta("c", &Usage{}), // nothing reported: not a line
				meta("d", nil),
			},
		}}, []store.UsageLine{
			{Backend: "model", Model: "b", Turns: 1, InputTokens: 6, OutputTokens: 3},
			{Backend: "model", Model: "a", InputTokens: 10, OutputTokens: 5, CostMicros: 9},
		}},
		{"a failed receipt has no usage", "model", Envelope{EnvelopeBody: EnvelopeBody{
			Status: StatusFailed, Output: []OutputItem{meta("a", &Usage{InputTokens: 5})},
		}}, []store.UsageLine{{Backend: "model", Turns: 1}}},
	} {
		if got := usageLines(c.backend, &c.env); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}

func TestDollars(t *testing.T) {
	for micros, want := range map[int64]string{500_000: "0.50", 2_000_000: "2.00", 1_234_567: "1.234567", 10_000: "0.01", 1: "0.000001"} {
		if got := dollars(micros); got != want {
			t.Errorf("dollars(%d) = %s, want %s", micros, got, want)
		}
	}
}
