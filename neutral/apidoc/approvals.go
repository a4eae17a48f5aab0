package apidoc

import (
	"github.com/getkin/kin-openapi/openapi3"
)

// ---------------------------------------------------------------------------
// Approval answers: approve, deny with a message, edit, respond

const approvalResolvedEventText = "- `approval.resolved`: a human answered an approval with more than a bare approve or deny; " +
	"`resolution` (`id`, `action`, `decision`, and `message`, `edited` with `arguments` and `originalArguments`, or " +
	"`result`) says how. The output and the transcript keep it as an `approval_resolved` item.\n"

// defineApprovalSchemas defines the answer to an approval and the
// resolution the stream and output report.
func (b *builder) defineApprovalSchemas() {
	decision := func(value, desc string) *openapi3.SchemaRef { return enumStr(desc, value) }
	answer := &openapi3.Schema{OneOf: openapi3.SchemaRefs{
		strictObject("Let the agent go on with the action as it asked.",
			req("decision", decision("approve", "`approve`."))),
		strictObject("Refuse the action; the agent is told, with the message when there is one (a model agent goes on "+
			"without the action, most other agents end the response as `denied`).",
			req("decision", decision("deny", "`deny`.")),
			opt("message", str("Why, in a sentence told to the agent."))),
		strictObject("Run the action with other arguments. Only when `requiredAction.answers` lists `edit`; the arguments "+
			"must match `requiredAction.argumentsSchema` (else 400 `invalid_arguments` with each violation's JSON Pointer, "+
			"and nothing changes). The stream and the transcript say they were edited.",
			req("decision", decision("edit", "`edit`.")),
			req("arguments", freeObject("The arguments the action runs with."))),
		strictObject("Answer in the action's place: it does not run, and the agent takes `result` as its result. Only "+
			"when `requiredAction.answers` lists `respond`.",
			req("decision", decision("respond", "`respond`.")),
			req("result", anyValue("The result the agent sees, any JSON value but `null`."))),
	}}
	answer.Description = "A human's answer to an approval: `approve`, `deny` (with an optional `message`), `edit` (with " +
		"new `arguments`) or `respond` (with a `result`). Every approval takes approve and deny; `requiredAction.answers` " +
		"lists the others when the agent takes them."
	b.define("ApprovalAnswer", inline(answer))

	b.define("ApprovalResolution", object("How a human answered an approval, when it was more than a bare approve or deny.",
		req("id", str("The approval ID.")),
		req("action", str("The action that was to be approved.")),
		req("decision", enumStr("The answer.", "approve", "deny", "edit", "respond")),
		opt("message", str("`deny`: the message told to the agent.")),
		opt("edited", boolean("`edit`: always true: the action ran with `arguments` instead of `originalArguments`.", false)),
		opt("arguments", freeObject("`edit`: the arguments the action ran with.")),
		opt("originalArguments", freeObject("`edit`: the arguments the agent asked with.")),
		opt("result", anyValue("`respond`: the result used in the action's place.")),
	))
}

// approvalAnswerExamples are the examples of POST /approvals/{id}'s body.
func approvalAnswerExamples() openapi3.Examples {
	return openapi3.Examples{
		"approve": example("Approve the action", map[string]any{"decision": "approve"}),
		"deny":    example("Deny the action", map[string]any{"decision": "deny"}),
		"denyWithMessage": example("Deny it, and tell the agent why",
			map[string]any{"decision": "deny", "message": "Not before Monday."}),
		"edit": example("Run it with other arguments",
			map[string]any{"decision": "edit", "arguments": map[string]any{"to": "bob@example.com", "subject": "Hello"}}),
		"respond": example("Answer in the action's place",
			map[string]any{"decision": "respond", "result": map[string]any{"sent": false, "note": "Bob is on leave."}}),
	}
}
