package backend

import (
	"context"

	"github.com/harnest/harnest/backend/chat"
	"github.com/harnest/harnest/internal/toolrun"
	"github.com/harnest/harnest/internal/tracing"
)

// complete makes one model call in a "chat <model>" trace span (a no-op
// when the turn is not traced). The span holds the model, the finish
// reason and the token counts, never the messages.
func (m *Model) complete(ctx context.Context, req chat.Request, h chat.Handlers) (*chat.Result, error) {
	ctx, span := tracing.StartModelCall(ctx, m.client.Model(), m.client.Provider())
	res, err := m.client.Complete(ctx, req, h)
	var traced tracing.ModelCallResult
	if res != nil {
		traced = tracing.ModelCallResult{Model: res.Model, FinishReason: res.FinishReason}
		if res.Usage != nil {
			traced.HasUsage, traced.InputTokens, traced.OutputTokens = true, res.Usage.InputTokens, res.Usage.OutputTokens
		}
	}
	span.End(traced, err)
	return res, err
}

// callTool runs one tool call in an "execute_tool <name>" trace span. The
// span holds the tool's name and the call's ID, never its arguments or
// output.
func (m *Model) callTool(ctx context.Context, c *toolCall) (toolrun.Result, error) {
	ctx, span := tracing.StartToolCall(ctx, c.Function.Name, c.ID)
	var res toolrun.Result
	var err error
	if m.isMemoryTool(c.Function.Name) {
		res, err = m.callMemory(ctx, c.user, c.Function.Name, c.args) // model_memory.go
	} else {
		res, err = m.tools.Call(ctx, c.Function.Name, c.args)
	}
	span.End(res.IsError, err)
	return res, err
}
