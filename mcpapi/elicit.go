package mcpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/harnest/harnest/runtime"
)

// outputSchema is the form a client tool asks for.
var outputSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"output": map[string]any{
			"type": "string", "title": "Output",
			"description": "The tool's output as JSON (text that is not JSON is sent as a JSON string).",
		},
	},
	"required": []string{"output"},
}

// canElicit reports whether the client declared form elicitation.
func (c *call) canElicit() bool {
	p := c.session.InitializeParams()
	if p == nil || p.Capabilities == nil || p.Capabilities.Elicitation == nil {
		return false
	}
	caps := p.Capabilities.Elicitation
	return caps.Form != nil || caps.URL == nil // neither declared means form
}

// elicit asks the client to answer a required action and, when it does,
// answers the wait through the runtime and returns the response's next
// boundary. Nil without an error means the client did not answer.
func (c *call) elicit(ctx context.Context, a runtime.RequiredAction) (*runtime.Envelope, error) {
	switch a.Type {
	case "human_approval":
		return c.elicitApproval(ctx, a)
	case "client_tool":
		return c.elicitClientTool(ctx, a)
	}
	return nil, nil
}

// elicitApproval asks for the answer (approve or deny, and for an
// approval that takes them, edit and respond: approval_answer.go); a
// declined form is a denial, a cancelled one leaves the approval open.
func (c *call) elicitApproval(ctx context.Context, a runtime.RequiredAction) (*runtime.Envelope, error) {
	question := fmt.Sprintf("%s\n\nAction: %s\nArguments: %s", a.Message, a.Action, argumentsText(a.Arguments))
	for range maxAnswerAttempts {
		res, err := c.ask(ctx, a, &mcp.ElicitParams{Message: question, RequestedSchema: approvalForm(a)})
		if err != nil || res == nil {
			return nil, err
		}
		answer, ok := formAnswer(res)
		if !ok {
			return nil, nil
		}
		resumed, err := c.svc.AnswerApprovalWith(ctx, c.caller, a.ID, answer)
		if refused := refusedAnswer(err); refused != "" {
			question = refused + "\n\n" + fmt.Sprintf("%s\n\nAction: %s\nArguments: %s", a.Message, a.Action, argumentsText(a.Arguments))
			continue // ask again: nothing changed
		}
		if err != nil {
			return nil, err
		}
		return c.follow(ctx, resumed)
	}
	return nil, nil // the approval stays open for another answer
}

// elicitClientTool asks for the tool's output; a declined or cancelled
// form leaves the request open.
func (c *call) elicitClientTool(ctx context.Context, a runtime.RequiredAction) (*runtime.Envelope, error) {
	question := fmt.Sprintf("The agent asks you to run the tool %s with the arguments %s. Enter its output as JSON.",
		a.Name, argumentsText(a.Arguments))
	res, err := c.ask(ctx, a, &mcp.ElicitParams{Message: question, RequestedSchema: outputSchema})
	if err != nil || res == nil || res.Action != "accept" {
		return nil, err
	}
	text, _ := res.Content["output"].(string)
	resumed, err := c.svc.AnswerClientTool(ctx, c.caller, a.ID, outputJSON(text))
	if err != nil {
		return nil, err
	}
	return c.follow(ctx, resumed)
}

// ask sends elicitation/create, bounded by the wait's expiry; its _meta
// names the response and the wait (MetaResponseID, MetaSessionID,
// MetaRequiredActionID). A client that fails to answer is no error (nil,
// nil): the wait stays open for an HTTP answer. A cancelled call is.
func (c *call) ask(ctx context.Context, a runtime.RequiredAction, params *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	params.Meta = mcp.Meta{MetaResponseID: c.responseID, MetaSessionID: c.sessionID, MetaRequiredActionID: a.ID}
	askCtx := ctx
	if expires, err := time.Parse(time.RFC3339Nano, a.ExpiresAt); err == nil {
		var cancel context.CancelFunc
		askCtx, cancel = context.WithDeadline(ctx, expires)
		defer cancel()
	}
	res, err := c.session.Elicit(askCtx, params)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil {
		return nil, nil
	}
	return res, nil
}

// follow reads the resumed response up to its next boundary (sending its
// text deltas as progress) and returns that boundary's envelope, or the
// error that ended it.
func (c *call) follow(ctx context.Context, r runtime.Resumption) (*runtime.Envelope, error) {
	failed := ""
	err := c.svc.Follow(ctx, c.caller, r.SessionID, r.ResponseID, r.After, func(f runtime.Frame) (bool, error) {
		switch f.Type {
		case runtime.EventTextDelta:
			if c.progress == nil {
				break
			}
			if e, err := f.Event(); err == nil {
				c.progress.text(ctx, e.Delta)
			}
		case runtime.EventCompleted:
			return true, nil
		case runtime.EventError:
			failed = errorSentence(f)
			return true, nil
		}
		return false, nil
	})
	if err != nil {
		return nil, err
	}
	receipt, err := c.svc.GetResponse(ctx, c.caller, r.SessionID, r.ResponseID)
	if err != nil {
		return nil, err
	}
	env, err := runtime.ParseReceipt(receipt)
	if err != nil {
		return nil, fmt.Errorf("mcpapi: the receipt of %s: %w", r.ResponseID, err)
	}
	if failed != "" {
		code := runtime.CodeInvocationFailed
		if env.Error != nil {
			code = env.Error.Code
		}
		return nil, &runtime.Error{Kind: runtime.ErrAgentFailed, Code: code, Detail: failed}
	}
	return &env, nil
}

// errorSentence is the sentence of an error frame.
func errorSentence(f runtime.Frame) string {
	e, err := f.Event()
	if err != nil || e.Error == "" {
		return "Agent execution failed"
	}
	return e.Error
}

// outputJSON is a client tool's output as the client typed it: JSON as
// itself, anything else as a JSON string.
func outputJSON(text string) json.RawMessage {
	trimmed := bytes.TrimSpace([]byte(text))
	if len(trimmed) > 0 && json.Valid(trimmed) {
		var compact bytes.Buffer
		if json.Compact(&compact, trimmed) == nil {
			return compact.Bytes()
		}
	}
	quoted, _ := json.Marshal(text)
	return quoted
}

// argumentsText shows arguments as compact JSON ("{}" when there are none).
func argumentsText(args json.RawMessage) string {
	var compact bytes.Buffer
	if len(args) == 0 || json.Compact(&compact, args) != nil {
		return "{}"
	}
	return compact.String()
}
