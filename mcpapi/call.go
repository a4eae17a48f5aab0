package mcpapi

import (
	"context"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/harnest/harnest/runtime"
)

// maxRounds bounds how many required actions one call asks the client
// about; past it the call returns the next one as requires_action.
const maxRounds = 32

// cancelTimeout bounds the cancellation of a response whose call was
// cancelled.
const cancelTimeout = 10 * time.Second

// call is one tools/call: one turn of the caller's session, from its start
// to the answer the tool returns.
type call struct {
	svc      *runtime.Service
	caller   runtime.Principal
	session  *mcp.ServerSession
	progress *progress // nil when the client asked for no progress

	sessionID, responseID string // once the response exists
}

// run starts the turn and waits for its first boundary, then settles what
// it requires.
func (c *call) run(ctx context.Context, in toolInput) (*mcp.CallToolResult, toolOutput, error) {
	if strings.TrimSpace(in.Message) == "" {
		return toolError(runtime.Errorf(runtime.ErrInvalid, "invalid_request", "message must be a non-blank string"))
	}
	return c.runRequest(ctx, runtime.ResponseRequest{Input: in.Message, SessionID: in.SessionID})
}

// runRequest runs a turn of req (its input and session; tool_typed.go
// gives a typed input's) to its first boundary and settles it.
func (c *call) runRequest(ctx context.Context, req runtime.ResponseRequest) (*mcp.CallToolResult, toolOutput, error) {
	req.Stream, req.Transport = c.progress != nil, runtime.TransportMCP
	resp, err := c.svc.StartResponse(ctx, c.caller, req)
	if err != nil {
		return toolError(err)
	}
	c.sessionID, c.responseID = resp.SessionID, resp.ID
	c.progress.of(resp.SessionID, resp.ID)
	defer c.cancelIfAbandoned(ctx)
	var out runtime.Outcome
	if resp.Events() != nil {
		out = resp.Each(func(e runtime.Event) error {
			if e.Type == runtime.EventTextDelta {
				c.progress.text(ctx, e.Delta)
			}
			return nil
		})
	} else {
		out = resp.Outcome()
	}
	if out.Err != nil {
		return toolError(out.Err)
	}
	return c.settle(ctx, out.Envelope)
}

// settle turns a boundary into the tool's result. A required action is
// asked of the client when it declared elicitation, answered through the
// runtime, and the response followed to its next boundary; otherwise (or
// when the client does not answer) the result says what is required and
// how to answer it over HTTP.
func (c *call) settle(ctx context.Context, env runtime.Envelope) (*mcp.CallToolResult, toolOutput, error) {
	for round := 0; env.Status == runtime.StatusRequiresAction && env.RequiredAction != nil; round++ {
		if round == maxRounds || !c.canElicit() {
			return requiredResult(env)
		}
		next, err := c.elicit(ctx, *env.RequiredAction)
		if err != nil {
			return toolError(err)
		}
		if next == nil { // not answered: the wait stays open
			return requiredResult(env)
		}
		env = *next
	}
	return finalResult(env)
}

// cancelIfAbandoned cancels the response when the call ended because its
// request was cancelled (or ran out of time). Before the first boundary the
// runtime does so itself; afterwards the response belongs to nobody, so a
// call cancelled while it asks the client or follows the resumed response
// cancels it here.
func (c *call) cancelIfAbandoned(ctx context.Context) {
	if ctx.Err() == nil {
		return
	}
	cancelCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cancelTimeout)
	defer cancel()
	_, _ = c.svc.CancelResponse(cancelCtx, c.caller, c.sessionID, c.responseID)
}
