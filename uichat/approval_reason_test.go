package uichat_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/server/servertest"
)

// A denial's reason (AI SDK's addToolApprovalResponse({approved: false,
// reason})) is told to the agent as the denial's message.
func TestDenialReasonReachesTheAgent(t *testing.T) {
	s := setup()
	s.Agent = runtime.AgentFunc(func(ctx context.Context, turn *runtime.Turn, emit runtime.Emit) error {
		a, err := turn.Approval(ctx, runtime.ApprovalRequest{Action: "send_email", Message: "Send the email?"})
		if err != nil {
			return err
		}
		return emit(runtime.Event{Type: runtime.EventTextDelta, Delta: a.Decision + ": " + a.Message})
	})
	servertest.EachStore(t, s, func(t *testing.T, ts *servertest.Server) {
		first := open(t, ts, "POST", "/api/chat", userMessage("chat-reason", "send it")).rest(t)
		req := find(t, first, "tool-approval-request")
		body, _ := json.Marshal(map[string]any{"id": "chat-reason", "messages": []any{
			map[string]any{"id": first[0]["messageId"], "role": "assistant", "parts": []any{
				map[string]any{"type": "dynamic-tool", "toolName": "send_email", "toolCallId": req["toolCallId"], "state": "approval-responded",
					"input": map[string]any{}, "approval": map[string]any{"id": req["approvalId"], "approved": false, "reason": "wrong address"}},
			}}}})
		rest := open(t, ts, "POST", "/api/chat", string(body)).rest(t)
		if got := text(rest); !strings.Contains(got, "deny: wrong address") {
			t.Fatalf("the agent was told %q", got)
		}
	})
}
