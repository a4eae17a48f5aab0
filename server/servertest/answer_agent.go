package servertest

import (
	"context"
	"encoding/json"

	"github.com/harnest/harnest/runtime"
)

// AnswerAgent asks for one approval of action "send" with arguments
// {"to":"alice"} that takes every answer (edit, respond; edited arguments
// must match {"to": string}) and answers with the ApprovalAnswer it got,
// as JSON: the doors' tests of richer approval answers read it back.
func AnswerAgent() runtime.Agent {
	return runtime.AgentFunc(func(ctx context.Context, turn *runtime.Turn, emit runtime.Emit) error {
		a, err := turn.Approval(ctx, runtime.ApprovalRequest{Action: "send", Message: "Send it?", Arguments: json.RawMessage(`{"to":"alice"}`),
			Answers: []string{runtime.DecisionEdit, runtime.DecisionRespond},
			Schema:  json.RawMessage(`{"type":"object","properties":{"to":{"type":"string"}},"required":["to"]}`)})
		if err != nil {
			return err
		}
		b, _ := json.Marshal(a)
		return emit(runtime.Event{Type: runtime.EventTextDelta, Delta: string(b)})
	})
}
