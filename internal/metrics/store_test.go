package metrics_test

import (
	"testing"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/server/servertest"
)

// TestStoreCommands: on real Redis every command the store sends is
// counted by name (scripts by theirs), and the counts grow with the
// turns; the in-process store sends no commands and reports none.
func TestStoreCommands(t *testing.T) {
	for _, c := range testutil.Stores(t) {
		t.Run(c.Name, func(t *testing.T) {
			// A per-minute limit runs the store's limit_window script for
			// every request.
			ts := servertest.Start(t, c.URL, servertest.Setup{Config: func(c *config.Config) { c.Server.Limits.RequestsPerMinute = 10000 }})
			servertest.MustStatus(t, ts.Post("/responses", `{"input":"hi"}`), 200)
			before := settled(t, ts)
			const turns = 3
			for i := 0; i < turns; i++ {
				servertest.MustStatus(t, ts.Post("/responses", `{"input":"hi"}`), 200)
			}
			after := settled(t, ts)
			if c.URL == "" {
				expect(t, after, map[string]float64{
					"harnest_store_commands_total":              0,
					"harnest_store_errors_total":                0,
					"harnest_store_round_trip_duration_seconds": 0,
				})
				return
			}
			redis := map[string]string{"store": "redis"}
			grew := value(after, "harnest_store_commands_total", redis) - value(before, "harnest_store_commands_total", redis)
			// At least the limit window and the commit (which makes a JSON
			// turn's new session) of every turn.
			if grew < turns*2 {
				t.Errorf("harnest_store_commands_total grew by %v over %d turns", grew, turns)
			}
			window := map[string]string{"store": "redis", "command": "limit_window"}
			if got := value(after, "harnest_store_commands_total", window) - value(before, "harnest_store_commands_total", window); got < turns {
				t.Errorf("the limit_window script counted %v times over %d turns", got, turns)
			}
			// The commands of the store's opening count too.
			if got := value(after, "harnest_store_commands_total", map[string]string{"command": "ping"}); got < 1 {
				t.Errorf("the opening's ping counted %v times", got)
			}
			// The final step, events included: the commit_response script, or
			// a transaction for a turn that makes its session (commitNewSession).
			final := value(after, "harnest_store_commands_total", map[string]string{"command": "commit_response"}) +
				value(after, "harnest_store_commands_total", map[string]string{"command": "exec"})
			if final < turns {
				t.Errorf("the final step (commit_response or a transaction) counted %v times over %d turns", final, turns)
			}
			if value(after, "harnest_store_round_trip_duration_seconds", redis) <= value(before, "harnest_store_round_trip_duration_seconds", redis) {
				t.Error("no round trip timed")
			}
			expect(t, after, map[string]float64{"harnest_store_errors_total": 0, "harnest_store_failures_total": 0})
			for _, v := range labelValues(after) {
				if len(v) > 40 || v == "evalsha" {
					t.Errorf("a label that is not a command name: %q", v)
				}
			}
		})
	}
}
