package mcpapi

import (
	"errors"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/harnest/harnest/runtime"
)

// Approval answers through elicitation. The form of an approval asks for
// its decision; for an approval that takes more than approve or deny
// (requiredAction.answers, runtime/approval_answer.go) it offers edit and
// respond too, with fields for a denial's message, the edited arguments
// (JSON text, the action's arguments by default) and the result used in
// the action's place (JSON text; other text is sent as a JSON string).
// Elicitation forms hold flat fields only, so JSON goes as text. An answer
// the approval refuses (arguments that break its schema) changes nothing:
// the form is asked again with the refusal, up to maxAnswerAttempts times,
// and the approval then stays open.

// maxAnswerAttempts bounds how often a refused answer is asked again.
const maxAnswerAttempts = 3

// decisionSchema is the form of an approval that takes approve or deny.
var decisionSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"decision": map[string]any{
			"type": "string", "enum": []string{"approve", "deny"}, "title": "Decision",
			"description": "approve lets the agent go on with the action; deny refuses it.",
		},
		"message": map[string]any{
			"type": "string", "title": "Message",
			"description": "deny: why, in a sentence told to the agent (optional).",
		},
	},
	"required": []string{"decision"},
}

// approvalForm is the form an approval asks for.
func approvalForm(a runtime.RequiredAction) map[string]any {
	if len(a.Answers) == 0 {
		return decisionSchema
	}
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"decision": map[string]any{
				"type": "string", "enum": a.Answers, "title": "Decision",
				"description": "approve lets the agent go on with the action; deny refuses it; edit runs it with the " +
					"arguments below; respond answers in its place with the result below (the action does not run).",
			},
			"message": map[string]any{
				"type": "string", "title": "Message",
				"description": "deny: why, in a sentence told to the agent (optional).",
			},
			"arguments": map[string]any{
				"type": "string", "title": "Arguments", "default": argumentsText(a.Arguments),
				"description": "edit: the arguments the action runs with, as a JSON object.",
			},
			"result": map[string]any{
				"type": "string", "title": "Result",
				"description": "respond: the result the agent sees in the action's place, as JSON (other text is sent as a string).",
			},
		},
		"required": []string{"decision"},
	}
}

// formAnswer reads an answered form; false: the client cancelled it (the
// approval stays open). A declined form is a denial.
func formAnswer(res *mcp.ElicitResult) (runtime.ApprovalAnswer, bool) {
	switch res.Action {
	case "accept":
	case "decline":
		return runtime.Deny, true
	default:
		return runtime.ApprovalAnswer{}, false
	}
	text := func(name string) string {
		s, _ := res.Content[name].(string)
		return strings.TrimSpace(s)
	}
	switch decision := text("decision"); decision {
	case runtime.DecisionApprove:
		return runtime.Approve, true
	case runtime.DecisionEdit:
		return runtime.ApprovalAnswer{Decision: decision, Arguments: outputJSON(text("arguments"))}, true
	case runtime.DecisionRespond:
		return runtime.ApprovalAnswer{Decision: decision, Result: outputJSON(text("result"))}, true
	default:
		return runtime.ApprovalAnswer{Decision: runtime.DecisionDeny, Message: text("message")}, true
	}
}

// refusedAnswer is the sentence of an answer the approval refused (the
// form is asked again), "" for anything else.
func refusedAnswer(err error) string {
	if err == nil {
		return ""
	}
	e := runtime.AsError(err)
	if !errors.Is(e, runtime.ErrInvalid) {
		return ""
	}
	return "That answer was refused: " + e.Detail
}

// approvalBody is the body that answers an approval over HTTP, as the
// result of a call without elicitation tells it.
func approvalBody(a *runtime.RequiredAction) string {
	if len(a.Answers) == 0 {
		return `{"decision": "approve"} or {"decision": "deny"}`
	}
	return `{"decision": "approve"}, {"decision": "deny", "message": "why"}, {"decision": "edit", "arguments": {...}} ` +
		`(matching requiredAction.argumentsSchema) or {"decision": "respond", "result": <the result in the action's place>}`
}
