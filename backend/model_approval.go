package backend

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/harnest/harnest/internal/toolrun"
	"github.com/harnest/harnest/runtime"
)

// A tool call that needs approval waits for the human's answer
// (runtime/approval_answer.go), which decides what the model sees:
//
//   - approve: the tool runs with the model's arguments;
//   - edit: the tool runs with the human's arguments (checked against the
//     tool's parameters when answered; the stream and the transcript say
//     they were edited);
//   - respond: the tool does not run; the human's result is its result;
//   - deny: the tool does not run; the model is told, with the human's
//     message when there is one;
//   - nobody in time: the tool does not run; the model is told.

// askApproval asks for the approval of a call and acts on the answer: c.run
// is set (with c.args edited) when the tool is to run, else c.result says
// what became of the call.
func (m *Model) askApproval(ctx context.Context, turn *runtime.Turn, parameters json.RawMessage, c *toolCall) error {
	if turn.AskApproval == nil && turn.RequestApproval == nil {
		return errors.New("model backend: a tool needs approval but the runtime offers no approvals for this turn")
	}
	name := c.Function.Name
	a, err := turn.Approval(ctx, runtime.ApprovalRequest{
		Action: name, Message: "Approve the call of " + name + " with these arguments?", Arguments: c.args,
		Answers: []string{runtime.DecisionEdit, runtime.DecisionRespond}, Schema: parameters,
	})
	switch {
	case errors.Is(err, runtime.ErrApprovalExpired):
		c.result = toolError("Nobody approved this call of " + name + " in time; it was not run.")
		return nil
	case err != nil:
		return err
	}
	switch a.Decision {
	case runtime.DecisionApprove:
		c.run = true
	case runtime.DecisionEdit:
		if err := m.tools.Validate(name, a.Arguments); err != nil { // checked when answered; the tool set may have changed since
			c.result = toolError("The user edited the arguments of this call of " + name + ", and the tool refused them: " + err.Error())
			return nil
		}
		c.args, c.run = a.Arguments, true
	case runtime.DecisionRespond:
		result := a.Result
		if len(result) == 0 {
			result = json.RawMessage("null")
		}
		c.result = toolrun.Result{Output: result}
	default:
		sentence := "The user denied this call of " + name + "; it was not run. Do not call it again for this request."
		if a.Message != "" {
			sentence = "The user denied this call of " + name + "; it was not run. The user said: " + a.Message
		}
		c.result = toolError(sentence)
	}
	return nil
}
