package backend

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/harnest/harnest/internal/toolrun"
	"github.com/harnest/harnest/runtime"
)

// askClientTogether asks the client, in one suspension, for every client
// tool call of a step that no earlier attempt answered, when the transport
// takes several calls in one answer (Turn.RequestClientTools) and there
// are several: the client sees them all at once (Open Responses: one
// response with every function_call). Otherwise it does nothing, and
// decide asks for each call in turn. The calls it answered are marked
// asked.
func (m *Model) askClientTogether(ctx context.Context, turn *runtime.Turn, offered turnTools, batch []*toolCall) error {
	if turn.RequestClientTools == nil {
		return nil
	}
	var calls []*toolCall
	for _, c := range batch {
		if _, recalled := recallResult(turn, c.key); !recalled && offered.client[c.Function.Name] {
			calls = append(calls, c)
		}
	}
	if len(calls) < 2 {
		return nil
	}
	reqs := make([]runtime.ClientToolRequest, len(calls))
	for i, c := range calls {
		reqs[i] = runtime.ClientToolRequest{Name: c.Function.Name, Arguments: c.args, CallID: c.ID}
	}
	outputs, err := turn.RequestClientTools(ctx, reqs)
	if err != nil && !errors.Is(err, runtime.ErrClientToolFailed) {
		return err
	}
	for i, c := range calls {
		c.asked = true
		switch {
		case err != nil:
			c.result = toolError("The client did not run " + c.Function.Name + " (it was cancelled or expired).")
		case len(outputs[i]) == 0:
			c.result = toolrun.Result{Output: json.RawMessage("null")}
		default:
			c.result = toolrun.Result{Output: outputs[i]}
		}
	}
	return nil
}
