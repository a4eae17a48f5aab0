package mcpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/harnest/harnest/runtime"
)

// The tool of a typed agent (spec.inputSchema): its inputSchema is
// {"input": <the agent's input schema>, "sessionId"?: string}. The SDK does
// not check the arguments against it (its validator is not the runtime's):
// the runtime does, so that a bad input is refused with the same JSON
// Pointers as on every other door, as a tool error naming them.

// typedToolInput is the typed tool's arguments.
type typedToolInput struct {
	Input     json.RawMessage `json:"input"`
	SessionID string          `json:"sessionId,omitempty"`
}

// typedInputSchema is the typed tool's inputSchema around the agent's.
func typedInputSchema(agent json.RawMessage) json.RawMessage {
	b, _ := json.Marshal(map[string]any{
		"type":                 "object",
		"required":             []string{"input"},
		"additionalProperties": false,
		"properties": map[string]any{
			"input": agent,
			"sessionId": map[string]any{"type": "string",
				"description": "The sessionId of an earlier answer, to continue that conversation; leave it out to start a new one."},
		},
	})
	return b
}

// addTypedTool adds the typed agent's one tool.
func (d *door) addTypedTool(server *mcp.Server, agentSchema json.RawMessage) {
	o := d.opts
	tool := &mcp.Tool{Name: o.AgentName, Title: d.displayName(), InputSchema: typedInputSchema(agentSchema),
		Description: d.toolDescription() + " Its input is typed: pass `input`, an object that matches the agent's input schema."}
	server.AddTool(tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in typedToolInput
		dec := json.NewDecoder(bytes.NewReader(req.Params.Arguments))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&in); err != nil || len(in.Input) == 0 {
			return errorResult(errors.New("arguments must be {\"input\": <an object matching the agent's input schema>, \"sessionId\"?: <string>} (invalid_request)")), nil
		}
		c := &call{svc: o.Service, caller: callerOf(req), session: req.Session, progress: newProgress(req)}
		res, out, err := c.runRequest(ctx, runtime.ResponseRequest{Input: string(in.Input), SessionID: in.SessionID,
			Parts: []runtime.InputPart{{Type: "data", Data: in.Input}}})
		if err != nil {
			return errorResult(err), nil
		}
		return withStructured(res, out)
	})
}

// errorResult is a tool result that reports err, as the SDK's typed tools
// do.
func errorResult(err error) *mcp.CallToolResult {
	var res mcp.CallToolResult
	res.SetError(err)
	return &res
}

// withStructured puts out in res as its structured content, and as text
// when res has no content, as the SDK's typed tools do.
func withStructured(res *mcp.CallToolResult, out toolOutput) (*mcp.CallToolResult, error) {
	if res == nil {
		res = &mcp.CallToolResult{}
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	res.StructuredContent = json.RawMessage(b)
	if res.Content == nil {
		res.Content = []mcp.Content{&mcp.TextContent{Text: string(b)}}
	}
	return res, nil
}
