package backend

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/harnest/harnest/runtime"
)

// Approvals in worker mode (docs/worker-protocol.md, Requests). An
// approval_request may offer more than approve and deny:
//
//	{"type":"approval_request",…,"answers":["edit","respond"],"argumentsSchema":{…}}
//
// and its answer then says which, with what the human gave
// (runtime/approval_answer.go):
//
//	{"type":"approval",…,"decision":"approve"}
//	{"type":"approval",…,"decision":"deny","message"?:"why"}        the turn ends denied, as before
//	{"type":"approval",…,"decision":"edit","arguments":{…}}         run the action with these arguments
//	{"type":"approval",…,"decision":"respond","result":<any JSON>}  do not run it; this is its result
//	{"type":"approval",…,"decision":"expired"}
//
// Edited arguments were checked against argumentsSchema when the human
// answered. A worker that offers no answers gets approve, deny or expired.

// approvalLine answers an approval_request.
type approvalLine struct {
	Type      string          `json:"type"` // "approval"
	ID        string          `json:"id"`
	RequestID string          `json:"requestId"`
	Decision  string          `json:"decision"` // "approve", "deny", "edit", "respond", "expired"
	Message   string          `json:"message,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
}

// answers reads an approval_request's optional answers and argumentsSchema.
func (r *lineReader) answers(m *workerMessage) {
	if raw, ok := r.d["answers"]; ok && !isNull(raw) {
		if err := json.Unmarshal(raw, &m.Answers); err != nil {
			r.fail(errors.New(`field "answers" must be an array of "edit" and "respond"`))
		}
		for _, a := range m.Answers {
			if a != runtime.DecisionEdit && a != runtime.DecisionRespond {
				r.fail(fmt.Errorf(`field "answers" names %q; it takes "edit" and "respond"`, a))
			}
		}
	}
	if raw, ok := r.d["argumentsSchema"]; ok && !isNull(raw) {
		m.ArgumentsSchema = r.obj("argumentsSchema", false)
	}
}

// askApproval asks the runtime for the approval a worker requested and
// makes the line that answers it; refusal is set for a denial or an expiry
// (the turn ends denied), fatal for anything else.
func askApproval(ctx context.Context, id string, turn *runtime.Turn, m workerMessage) (line approvalLine, refusal, fatal error) {
	message := m.Message
	if message == "" {
		message = fmt.Sprintf("Approve %s?", m.Action)
	}
	answer, err := turn.Approval(ctx, runtime.ApprovalRequest{
		Action: m.Action, Message: message, Arguments: m.Arguments,
		Answers: slices.Clone(m.Answers), Schema: m.ArgumentsSchema,
	})
	line = approvalLine{Type: "approval", ID: id, RequestID: m.RequestID}
	switch {
	case errors.Is(err, runtime.ErrApprovalExpired):
		line.Decision = "expired"
		return line, err, nil
	case err != nil:
		return line, nil, err
	}
	line.Decision, line.Message, line.Arguments, line.Result = answer.Decision, answer.Message, answer.Arguments, answer.Result
	if answer.Decision == runtime.DecisionDeny {
		return line, runtime.ErrApprovalDenied, nil
	}
	return line, nil, nil
}
