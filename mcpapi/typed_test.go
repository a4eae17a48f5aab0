package mcpapi_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/server/servertest"
)

const typedSchema = `{"type":"object","required":["city","days"],"additionalProperties":false,
 "properties":{"city":{"type":"string","minLength":1},"days":{"type":"integer","minimum":1,"maximum":7}}}`

// TestTypedAgentTool checks a typed agent's MCP tool: its inputSchema
// holds the agent's schema under input; a bad input is a tool error naming
// each violation's JSON Pointer, and stores nothing; a good one answers.
func TestTypedAgentTool(t *testing.T) {
	s := servertest.Setup{Config: func(c *config.Config) {
		c.Server.MCP = true
		c.Spec.InputSchema = config.JSONValue(typedSchema)
	}}
	servertest.EachStore(t, s, func(t *testing.T, ts *servertest.Server) {
		cs := connect(t, ts, client{})
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		tools, err := cs.ListTools(ctx, nil)
		if err != nil || len(tools.Tools) != 1 {
			t.Fatalf("tools/list: %v %v", tools, err)
		}
		schema, _ := json.Marshal(tools.Tools[0].InputSchema)
		if !strings.Contains(string(schema), `"input":{"additionalProperties":false,"properties":{"city"`) {
			t.Fatalf("inputSchema %s", schema)
		}

		bad := callTool(t, cs, map[string]any{"input": map[string]any{"city": "", "days": 9, "extra": true}})
		text := bad.Content[0].(*mcp.TextContent).Text
		if !bad.IsError || !strings.Contains(text, "input_invalid") {
			t.Fatalf("bad input answered %v %q", bad.IsError, text)
		}
		for _, at := range []string{"at the top level: ", "at /city: ", "at /days: "} {
			if !strings.Contains(text, at) {
				t.Fatalf("%q does not name %q", text, at)
			}
		}
		if r := ts.Get("/sessions"); !strings.Contains(string(r.Body), `"sessions":[]`) {
			t.Fatalf("sessions after a refusal: %s", r.Body)
		}
		if r := callTool(t, cs, map[string]any{"message": "hi"}); !r.IsError {
			t.Fatal("a message to a typed agent was taken")
		}

		good := callTool(t, cs, map[string]any{"input": map[string]any{"city": "Paris", "days": 2}})
		if good.IsError || !strings.Contains(good.Content[0].(*mcp.TextContent).Text, `"city":"Paris"`) {
			t.Fatalf("good input answered %v %v", good.IsError, good.Content[0])
		}
	})
}
