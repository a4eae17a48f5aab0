package mcpapi_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/harnest/harnest/server/servertest"
)

// answerForms answers the elicitations with the forms in turn, and records
// the questions.
func answerForms(asked chan<- *mcp.ElicitParams, forms ...map[string]any) func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	next := 0
	return func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked <- req.Params
		form := forms[min(next, len(forms)-1)]
		next++
		return &mcp.ElicitResult{Action: "accept", Content: form}, nil
	}
}

// The elicitation form of an approval that takes more than yes or no
// offers every answer; an edit that breaks the schema is asked again with
// the refusal (nothing changed), and the edit, a respond and a denial's
// message reach the agent.
func TestRicherAnswersByElicitation(t *testing.T) {
	s := setup{}.serverSetup()
	s.Agent = servertest.AnswerAgent()
	servertest.EachStore(t, s, func(t *testing.T, ts *servertest.Server) {
		cases := []struct {
			forms []map[string]any
			want  string
		}{
			{[]map[string]any{{"decision": "edit", "arguments": `{"to": 7}`}, {"decision": "edit", "arguments": `{"to":"bob"}`}},
				`{"decision":"edit","arguments":{"to":"bob"}}`},
			{[]map[string]any{{"decision": "respond", "result": `{"sent": false}`}}, `{"decision":"respond","result":{"sent":false}}`},
			{[]map[string]any{{"decision": "deny", "message": "not now"}}, `{"decision":"deny","message":"not now"}`},
		}
		for _, c := range cases {
			asked := make(chan *mcp.ElicitParams, 4)
			cs := connect(t, ts, client{elicit: answerForms(asked, c.forms...)})
			out := structured(t, callTool(t, cs, map[string]any{"message": "go"}))
			if out.Status != "completed" || out.Text != c.want {
				t.Fatalf("%v: %+v", c.forms, out)
			}
			first := <-asked
			schema, _ := json.Marshal(first.RequestedSchema)
			if !strings.Contains(string(schema), `"enum":["approve","deny","edit","respond"]`) || !strings.Contains(string(schema), `"default":"{\"to\":\"alice\"}"`) {
				t.Errorf("form %s", schema)
			}
			if len(c.forms) > 1 {
				again := <-asked
				if !strings.Contains(again.Message, "refused") || !strings.Contains(again.Message, "/to") {
					t.Errorf("asked again with %q", again.Message)
				}
			}
		}
	})
}
