package a2a

import (
	"strings"

	"github.com/harnest/harnest/runtime"
)

// richerAnswersText is the input-required sentence of an approval that
// takes more than approve or deny.
const richerAnswersText = `Reply on this task with "approve" or "deny", or with a data part {"decision": ...}: ` +
	`"deny" with a "message", "edit" with new "arguments", or "respond" with a "result" used in the action's place.`

// approvalAnswer reads the part that answers an input-required approval:
// the text "approve" or "deny", or a data part holding any answer of POST
// /approvals/{id} (runtime/approval_answer.go):
//
//	{"decision": "approve"}
//	{"decision": "deny", "message"?: "why"}
//	{"decision": "edit", "arguments": {...}}
//	{"decision": "respond", "result": <any JSON>}
//
// An answer the approval does not take (a decision it does not offer,
// edited arguments that break its schema) is refused by the runtime as
// invalid params, and the task still waits.
func approvalAnswer(part Part) (runtime.ApprovalAnswer, *Error) {
	const usage = `An approval is answered with the text "approve" or "deny", or data {"decision": "approve"|"deny"|"edit"|"respond", ...}`
	switch {
	case part.Text != nil:
		switch strings.ToLower(strings.TrimSpace(*part.Text)) {
		case "approve":
			return runtime.Approve, nil
		case "deny":
			return runtime.Deny, nil
		}
	case part.Data != nil:
		a, err := runtime.ParseApprovalAnswer(part.Data)
		if err != nil {
			return a, errInvalidParams(usage + ": " + runtime.AsError(err).Detail)
		}
		return a, nil
	}
	return runtime.ApprovalAnswer{}, errInvalidParams(usage)
}
