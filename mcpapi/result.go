package mcpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/harnest/harnest/runtime"
)

// deniedText answers a call whose approval was denied.
const deniedText = "The action was denied, so the agent did not go on with it."

// finalResult is the result of a response that reached a final status.
func finalResult(env runtime.Envelope) (*mcp.CallToolResult, toolOutput, error) {
	out := toolOutput{Text: env.OutputText, SessionID: env.SessionID, ResponseID: env.ID, Status: env.Status}
	switch env.Status {
	case runtime.StatusCompleted:
		return textResult(env.OutputText), out, nil
	case runtime.StatusDenied:
		return textResult(deniedText), out, nil
	case runtime.StatusCancelled:
		return toolError(runtime.Errorf(runtime.ErrCancelled, codeOf(env, runtime.CodeCancelled), "Response cancelled"))
	}
	return toolError(runtime.Errorf(runtime.ErrAgentFailed, codeOf(env, runtime.CodeInvocationFailed), "The response failed"))
}

func codeOf(env runtime.Envelope, fallback string) string {
	if env.Error != nil && env.Error.Code != "" {
		return env.Error.Code
	}
	return fallback
}

// requiredResult is the result of a response that waits for an approval
// or a client tool: what it waits for and the HTTP call that answers it.
func requiredResult(env runtime.Envelope) (*mcp.CallToolResult, toolOutput, error) {
	a := env.RequiredAction
	ra := requiredAction{Type: a.Type, ID: a.ID, Action: a.Action, Message: a.Message, Name: a.Name, ExpiresAt: a.ExpiresAt}
	if len(a.Arguments) > 0 && json.Unmarshal(a.Arguments, &ra.Arguments) != nil {
		ra.Arguments = nil // not an object: the text says them
	}
	var text string
	if a.Type == "client_tool" {
		ra.Answer = answer{Method: "POST", Path: "/client-tools/" + url.PathEscape(a.ID), Body: `{"output": <the tool's output as JSON>}`}
		text = fmt.Sprintf("The agent waits for the client tool %s to run with the arguments %s. "+
			"Send its output with %s %s and the body %s before %s; that call returns the rest of the answer.",
			a.Name, argumentsText(a.Arguments), ra.Answer.Method, ra.Answer.Path, ra.Answer.Body, a.ExpiresAt)
	} else {
		ra.Answer = answer{Method: "POST", Path: "/approvals/" + url.PathEscape(a.ID), Body: approvalBody(a)} // approval_answer.go
		text = fmt.Sprintf("The agent waits for a human approval of %s (%s Arguments: %s). "+
			"Approve or deny it with %s %s and the body %s before %s; that call returns the rest of the answer.",
			a.Action, a.Message, argumentsText(a.Arguments), ra.Answer.Method, ra.Answer.Path, ra.Answer.Body, a.ExpiresAt)
	}
	text += fmt.Sprintf(" (approval or request ID %s, sessionId %s, responseId %s)", a.ID, env.SessionID, env.ID)
	if env.OutputText != "" {
		text = env.OutputText + "\n\n" + text
	}
	out := toolOutput{Text: env.OutputText, SessionID: env.SessionID, ResponseID: env.ID,
		Status: runtime.StatusRequiresAction, RequiredAction: ra}
	return textResult(text), out, nil
}

// textResult is a result with one text content; with no text the SDK
// fills in the structured content as JSON text.
func textResult(text string) *mcp.CallToolResult {
	if text == "" {
		return &mcp.CallToolResult{}
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

// toolError is the tool error result of a failure: the runtime's sentence
// and stable code (and when to retry), never internal details. The SDK
// turns the returned error into a result with isError set.
func toolError(err error) (*mcp.CallToolResult, toolOutput, error) {
	var e *runtime.Error
	switch {
	case errors.As(err, &e):
	case errors.Is(err, context.Canceled):
		e = runtime.Errorf(runtime.ErrCancelled, runtime.CodeCancelled, "The call was cancelled")
	case errors.Is(err, context.DeadlineExceeded):
		e = runtime.Errorf(runtime.ErrTimeout, runtime.CodeTimedOut, "The call ran out of time")
	default:
		e = runtime.AsError(err)
	}
	text := fmt.Sprintf("%s (%s)", e.Detail, e.Code)
	if e.RetryAfter > 0 {
		text += fmt.Sprintf(" Retry after %d s.", int64((e.RetryAfter+time.Second-1)/time.Second))
	}
	return nil, toolOutput{}, errors.New(text)
}
