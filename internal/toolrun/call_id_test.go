package toolrun

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/testutil/fakemcp"
)

// A call's ID (WithCallID) reaches the tool as its idempotency key: an
// exec tool in HARNEST_CALL_ID, an MCP tool in the call's _meta; a call
// without one passes none.
func TestCallIDReachesTheTool(t *testing.T) {
	fake := fakemcp.StartHTTP(t)
	fake.Server().AddTool(&mcp.Tool{Name: "meta", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			id, _ := req.Params.Meta[MetaCallID].(string)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "id=" + id}}}, nil
		})
	s := openSet(t, Options{
		Tools:      []config.Tool{{Name: "env", Exec: &config.ToolExec{Command: []string{"/bin/sh", "-c", `printf '"id=%s"' "$HARNEST_CALL_ID"`}}}},
		MCPServers: []config.MCPServer{{Name: "web", URL: fake.URL}},
	})
	for _, tool := range []string{"env", "web__meta"} {
		for _, id := range []string{"resp_1/tool/0/call_9", ""} {
			res, err := s.Call(WithCallID(context.Background(), id), tool, json.RawMessage(`{}`))
			if err != nil || res.IsError || outputString(t, res) != "id="+id {
				t.Errorf("%s with call ID %q: %s (IsError %v) %v", tool, id, res.Output, res.IsError, err)
			}
		}
	}
}
