package router_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/testutil/fakemodel"
	"github.com/harnest/harnest/server/servertest"
)

// A routed model harness that asks for two client tools at once (Open
// Responses) has the turn from then on, as with one client tool: the
// caller may answer after the harness's wait bound, and the harness, not
// a fallback, answers with the outputs.
func TestRoutedClientToolBatch(t *testing.T) {
	fake := fakemodel.Start(t)
	cfg := config.RouterBackend{
		Harnesses: map[string]config.RouterHarness{
			"house": echo(),
			"model": {Model: &config.ModelBackend{BaseURL: fake.URL, Model: "test-model", TimeoutSeconds: 10, MaxSteps: 4}, WaitMs: 200},
		},
		Order: []string{"model", "house"}, House: "house", Choice: "model", PlanDailyTurns: intp(100),
	}
	s := setup(cfg)
	base := s.Config
	s.Config = func(c *config.Config) { base(c); c.Server.OpenResponses = true }
	servertest.EachStore(t, s, func(t *testing.T, ts *servertest.Server) {
		fake.Script(fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{
			{ID: "call_1", Name: "get_weather", Arguments: `{}`}, {ID: "call_2", Name: "get_time", Arguments: `{}`}}},
			fakemodel.Reply{Text: "Sunny at noon."})
		owner := ts.As(ownerToken)
		first := owner.Post("/v1/responses", `{"model":"hello","input":"weather and time?","tools":[
			{"type":"function","name":"get_weather"},{"type":"function","name":"get_time"}]}`)
		servertest.MustStatus(t, first, http.StatusOK)
		var res struct {
			ID     string `json:"id"`
			Output []struct {
				Type   string `json:"type"`
				CallID string `json:"call_id"`
			} `json:"output"`
		}
		if err := json.Unmarshal(first.Body, &res); err != nil || len(res.Output) != 2 {
			t.Fatalf("first = %v %s", err, first.Body)
		}
		time.Sleep(500 * time.Millisecond) // past the harness's wait bound
		second := owner.Post("/v1/responses", `{"model":"hello","previous_response_id":"`+res.ID+`","input":[
			{"type":"function_call_output","call_id":"`+res.Output[0].CallID+`","output":"sunny"},
			{"type":"function_call_output","call_id":"`+res.Output[1].CallID+`","output":"noon"}]}`)
		servertest.MustStatus(t, second, http.StatusOK)
		if got, _ := second.JSON(t)["output_text"].(string); !strings.Contains(got, "Sunny at noon.") {
			t.Fatalf("second = %s", second.Body)
		}
	})
}
