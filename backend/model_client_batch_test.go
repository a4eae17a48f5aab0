package backend_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/testutil/fakemodel"
	"github.com/harnest/harnest/server/servertest"
)

// When the model calls two client tools in one step and the transport
// takes several calls at once (Open Responses), the turn suspends once:
// the response carries both function_calls, one answer gives both
// outputs, and the model gets each output under its own call, in call
// order, beside the server tool called in the same step.
func TestModelClientToolsTogether(t *testing.T) {
	openResponses := func(c *config.Config) { c.Server.OpenResponses = true }
	eachModelServer(t, openResponses, func(t *testing.T, ts *servertest.Server, fake *fakemodel.Server) {
		fake.Script(fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{
			{ID: "call_walls", Name: "pick_color", Arguments: `{"for":"walls"}`},
			{ID: "call_echo", Name: "repeat", Arguments: `{"text":"hi"}`},
			{ID: "call_door", Name: "pick_color", Arguments: `{"for":"door"}`},
		}}, fakemodel.Reply{Text: "Painted."})
		first := ts.Post("/v1/responses", `{"model":"model-test","input":"paint the house"}`)
		servertest.MustStatus(t, first, 200)
		var res struct {
			ID     string `json:"id"`
			Output []struct {
				Type   string `json:"type"`
				CallID string `json:"call_id"`
				Name   string `json:"name"`
			} `json:"output"`
		}
		if err := json.Unmarshal(first.Body, &res); err != nil {
			t.Fatal(err)
		}
		var calls []string
		for _, it := range res.Output {
			if it.Type == "function_call" && it.Name == "pick_color" {
				calls = append(calls, it.CallID)
			}
		}
		if len(calls) != 2 {
			t.Fatalf("output = %s", first.Body)
		}
		answer := `{"model":"model-test","previous_response_id":"` + res.ID + `","input":[
			{"type":"function_call_output","call_id":"` + calls[1] + `","output":"green"},
			{"type":"function_call_output","call_id":"` + calls[0] + `","output":"white"}]}`
		second := ts.Post("/v1/responses", answer)
		servertest.MustStatus(t, second, 200)
		if got := second.JSON(t)["output_text"]; got != "Painted." {
			t.Fatalf("second = %s", second.Body)
		}
		if n := len(fake.Requests()); n != 2 {
			t.Fatalf("%d model calls, want 2: the two client tools were asked in one step", n)
		}
		results := map[string]string{}
		var order []string
		for _, m := range fake.Requests()[1].Messages {
			if m.Role == "tool" {
				results[m.ToolCallID] = m.Text()
				order = append(order, m.ToolCallID)
			}
		}
		if strings.Join(order, ",") != "call_walls,call_echo,call_door" || !strings.Contains(results["call_walls"], "white") ||
			!strings.Contains(results["call_door"], "green") || !strings.Contains(results["call_echo"], "hi") {
			t.Fatalf("the model got %v in order %v", results, order)
		}
	})
}
