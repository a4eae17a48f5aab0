package mcpapi

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Keys of the _meta of the requests and notifications a call sends: the
// response (MetaResponseID) and its session (MetaSessionID) in
// notifications/progress and elicitation/create, and in the latter the
// approval or client tool request asked about (MetaRequiredActionID), which
// POST /approvals/{id} or POST /client-tools/{id} also answers.
const (
	MetaResponseID       = "harnest.dev/responseId"
	MetaSessionID        = "harnest.dev/sessionId"
	MetaRequiredActionID = "harnest.dev/requiredActionId"
)

// toolInput is the tool's input: one message, and the session to continue.
type toolInput struct {
	Message   string `json:"message" jsonschema:"What to say to the agent: the input of one turn."`
	SessionID string `json:"sessionId,omitempty" jsonschema:"The sessionId of an earlier answer, to continue that conversation; leave it out to start a new one."`
}

// toolOutput is the tool's structured content.
type toolOutput struct {
	Text       string `json:"text" jsonschema:"The agent's answer (so far, when an action is required)."`
	SessionID  string `json:"sessionId" jsonschema:"The conversation: pass it again to continue it."`
	ResponseID string `json:"responseId" jsonschema:"This turn's response."`
	Status     string `json:"status" jsonschema:"completed, requires_action or denied."`
	// RequiredAction is set when Status is requires_action, and absent
	// otherwise: its schema is an object that may be left out, not a
	// union with null (strict clients such as the MCP Inspector warn of
	// ["null","object"]).
	RequiredAction requiredAction `json:"requiredAction,omitzero" jsonschema:"What the agent waits for, and how to answer it (only when status is requires_action)."`
}

// requiredAction is what a requires_action response waits for: a human
// approval or a client tool, and the HTTP call that answers it.
type requiredAction struct {
	Type    string `json:"type" jsonschema:"human_approval or client_tool."`
	ID      string `json:"id" jsonschema:"The approval or client tool request to answer."`
	Action  string `json:"action,omitempty" jsonschema:"The action to approve."`
	Message string `json:"message,omitempty" jsonschema:"The agent's question to the human."`
	Name    string `json:"name,omitempty" jsonschema:"The client tool to run."`
	// Arguments is an object, with any members; arguments that are not
	// an object are only in the text content.
	Arguments map[string]any `json:"arguments,omitempty" jsonschema:"The action's or the tool's arguments."`
	ExpiresAt string         `json:"expiresAt" jsonschema:"When the wait ends without an answer."`
	Answer    answer         `json:"answer" jsonschema:"The HTTP call that answers it."`
}

// answer is the HTTP call that answers a required action.
type answer struct {
	Method string `json:"method"`
	Path   string `json:"path"`
	Body   string `json:"body" jsonschema:"The JSON body to send."`
}

// newServer builds the MCP server with its one tool.
func (d *door) newServer() *mcp.Server {
	o := d.opts
	server := mcp.NewServer(&mcp.Implementation{Name: o.AgentName, Title: o.DisplayName, Version: "harnest"}, &mcp.ServerOptions{
		Logger: d.log,
		Instructions: fmt.Sprintf("Call the tool %s to talk to the agent %s. Pass the returned sessionId to continue a conversation.",
			o.AgentName, d.displayName()),
	})
	if schema := o.Service.Contract().InputSchema(); schema != nil {
		d.addTypedTool(server, schema.JSON()) // tool_typed.go
		return server
	}
	mcp.AddTool(server, &mcp.Tool{Name: o.AgentName, Title: d.displayName(), Description: d.toolDescription()}, d.callTool)
	return server
}

func (d *door) displayName() string {
	if d.opts.DisplayName != "" {
		return d.opts.DisplayName
	}
	return d.opts.AgentName
}

// toolDescription is the card's description and how to use the tool.
func (d *door) toolDescription() string {
	about := d.opts.Description
	if about == "" {
		about = "The agent " + d.displayName() + "."
	}
	return about + " Send it a message; the result is its answer and a sessionId, which continues the conversation when passed again."
}

// callTool runs one turn for the caller of the request that carried the
// call.
func (d *door) callTool(ctx context.Context, req *mcp.CallToolRequest, in toolInput) (*mcp.CallToolResult, toolOutput, error) {
	c := &call{svc: d.opts.Service, caller: callerOf(req), session: req.Session, progress: newProgress(req)}
	return c.run(ctx, in)
}
