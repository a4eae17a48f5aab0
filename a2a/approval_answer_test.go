package a2a_test

import (
	"testing"

	"github.com/harnest/harnest/server/servertest"
)

// An input-required approval answered on another replica with a data
// part: a bad edit is invalid params and the task still waits; an edit, a
// respond and a denial with a message reach the agent.
func TestRicherApprovalAnswers(t *testing.T) {
	servertest.EachStoreReplicas(t, 2, setup{agent: servertest.AnswerAgent()}.serverSetup(), func(t *testing.T, replicas []*servertest.Server) {
		first, second := harnessOf(replicas[0]), harnessOf(replicas[1])
		ask := func() (string, string) {
			r := first.rpc("1.0", "SendMessage", map[string]any{"message": msg10("go")}).JSON(t)
			task := dig(r, "result", "task")
			if str(task, "status", "state") != stateInputRequired || str(task, "status", "message", "parts", 1, "data", "answers", 2) != "edit" ||
				dig(task, "status", "message", "parts", 1, "data", "argumentsSchema") == nil {
				t.Fatalf("send %v", r)
			}
			return str(task, "id"), str(task, "contextId")
		}
		answer := func(id, ctx string, data any) map[string]any {
			m := map[string]any{"messageId": "answer", "role": "ROLE_USER", "taskId": id, "contextId": ctx,
				"parts": []any{map[string]any{"data": data}}}
			return second.rpc("1.0", "SendMessage", map[string]any{"message": m}).JSON(t)
		}
		cases := []struct {
			data any
			want string
		}{
			{map[string]any{"decision": "edit", "arguments": map[string]any{"to": "bob"}}, `{"decision":"edit","arguments":{"to":"bob"}}`},
			{map[string]any{"decision": "respond", "result": []any{1, 2}}, `{"decision":"respond","result":[1,2]}`},
			{map[string]any{"decision": "deny", "message": "not now"}, `{"decision":"deny","message":"not now"}`},
		}
		for _, c := range cases {
			id, ctx := ask()
			if bad := answer(id, ctx, map[string]any{"decision": "edit", "arguments": map[string]any{"to": 1}}); dig(bad, "error", "code") != float64(-32602) {
				t.Fatalf("a bad edit was taken: %v", bad)
			}
			if g := first.rpc("1.0", "GetTask", map[string]any{"id": id}).JSON(t); str(g, "result", "status", "state") != stateInputRequired {
				t.Fatalf("a refused answer changed the task: %v", g)
			}
			ok := answer(id, ctx, c.data)
			if str(ok, "result", "task", "status", "state") != stateCompleted || str(ok, "result", "task", "artifacts", 0, "parts", 0, "text") != c.want {
				t.Fatalf("answer %v: %v", c.data, ok)
			}
		}
	})
}
