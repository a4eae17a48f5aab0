package agui

import (
	"encoding/json"

	"github.com/harnest/harnest/runtime"
)

// Approval answers through interrupts. An approval interrupt is resumed
// with {"approved": true|false}, or with any answer of POST
// /approvals/{id} (runtime/approval_answer.go) when the approval takes
// more than a yes or no (the metadata's harnest.answers lists them):
//
//	{"decision": "approve"}
//	{"decision": "deny", "message"?: "why"}
//	{"decision": "edit", "arguments": {...}}      the interrupt's responseSchema holds the arguments' schema
//	{"decision": "respond", "result": <any JSON>}
//
// A cancelled interrupt is a denial. A refused answer (a decision the
// approval does not take, arguments that break its schema) is 400 with
// the refusal's code and violations, before the run starts, and the
// interrupt still waits.

// approvalPayload reads an approval interrupt's resume payload; msg says
// what is wrong with it.
func approvalPayload(payload json.RawMessage) (runtime.ApprovalAnswer, string) {
	const usage = `an approval's resume payload must be {"approved": true} or {"approved": false}, or an answer {"decision": "approve"|"deny"|"edit"|"respond", ...}`
	var fields map[string]json.RawMessage
	if json.Unmarshal(payload, &fields) != nil || fields == nil {
		return runtime.ApprovalAnswer{}, usage
	}
	if _, ok := fields["decision"]; ok {
		a, err := runtime.ApprovalAnswerOf(fields)
		if err != nil {
			return a, usage + ": " + runtime.AsError(err).Detail
		}
		return a, ""
	}
	if len(fields) == 1 {
		switch string(fields["approved"]) {
		case "true":
			return runtime.Approve, ""
		case "false":
			return runtime.Deny, ""
		}
	}
	return runtime.ApprovalAnswer{}, usage
}

// approvalResponseSchema is what an approval interrupt's resume payload
// must be: {"approved": bool}, or, for an approval that takes more, one
// of its answers too (an edit's arguments with the action's schema).
func approvalResponseSchema(a runtime.RequiredAction) json.RawMessage {
	if len(a.Answers) == 0 {
		return approvalSchema
	}
	variant := func(decision string, members map[string]any, required ...string) map[string]any {
		props := map[string]any{"decision": map[string]any{"const": decision}}
		for k, v := range members {
			props[k] = v
		}
		return map[string]any{"type": "object", "properties": props, "required": append([]string{"decision"}, required...),
			"additionalProperties": false}
	}
	var approved any
	_ = json.Unmarshal(approvalSchema, &approved)
	oneOf := []any{approved}
	for _, d := range a.Answers {
		switch d {
		case runtime.DecisionApprove:
			oneOf = append(oneOf, variant(d, nil))
		case runtime.DecisionDeny:
			oneOf = append(oneOf, variant(d, map[string]any{"message": map[string]any{"type": "string"}}))
		case runtime.DecisionEdit:
			arguments := any(map[string]any{"type": "object"})
			if len(a.ArgumentsSchema) > 0 {
				arguments = a.ArgumentsSchema
			}
			oneOf = append(oneOf, variant(d, map[string]any{"arguments": arguments}, "arguments"))
		case runtime.DecisionRespond:
			oneOf = append(oneOf, variant(d, map[string]any{"result": map[string]any{}}, "result"))
		}
	}
	b, err := json.Marshal(map[string]any{"oneOf": oneOf})
	if err != nil {
		return approvalSchema
	}
	return b
}
