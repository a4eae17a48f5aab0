package servertest

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/harnest/harnest/runtime"
)

// ApprovalAgent says "Drafted. ", asks for approval of "send" ({"to":"bob"}),
// then, when the input says "where", for the client tool "get_location",
// and answers "Sent." (and " From <location>."): the doors' and triggers'
// tests of answered waits.
func ApprovalAgent() runtime.Agent {
	return runtime.AgentFunc(func(ctx context.Context, turn *runtime.Turn, emit runtime.Emit) error {
		if err := emit(runtime.Event{Type: runtime.EventTextDelta, Delta: "Drafted. "}); err != nil {
			return err
		}
		if err := turn.RequestApproval(ctx, runtime.ApprovalRequest{Action: "send", Message: "Send the reply?", Arguments: json.RawMessage(`{"to":"bob"}`)}); err != nil {
			return err
		}
		answer := "Sent."
		if strings.Contains(turn.Input, "where") {
			out, err := turn.RequestClientTool(ctx, runtime.ClientToolRequest{Name: "get_location", Arguments: json.RawMessage(`{}`)})
			if err != nil {
				return err
			}
			answer += " From " + string(out) + "."
		}
		return emit(runtime.Event{Type: runtime.EventTextDelta, Delta: answer})
	})
}
