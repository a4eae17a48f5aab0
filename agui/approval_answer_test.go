package agui_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/server/servertest"
)

// An approval interrupt that takes every answer, on two replicas: its
// responseSchema offers them (with the arguments' schema); a bad edit is
// 400 with its pointers and the interrupt still waits; edit, respond and
// a denial's message reach the agent, and the stream says how it was
// answered (CUSTOM approval.resolved).
func TestInterruptTakesRicherAnswers(t *testing.T) {
	for _, c := range testutil.Stores(t) {
		t.Run(c.Name, func(t *testing.T) {
			shared := servertest.Shared(t, c.URL, setup{agent: servertest.AnswerAgent()}.serverSetup())
			first, second := &testServer{servertest.Start(t, c.URL, shared)}, &testServer{servertest.Start(t, c.URL, shared)}
			for i, answer := range []struct{ payload, want string }{
				{`{"decision":"edit","arguments":{"to":"bob"}}`, `{"decision":"edit","arguments":{"to":"bob"}}`},
				{`{"decision":"respond","result":{"sent":false}}`, `{"decision":"respond","result":{"sent":false}}`},
				{`{"decision":"deny","message":"not now"}`, `{"decision":"deny","message":"not now"}`},
				{`{"approved":true}`, `{"decision":"approve"}`},
			} {
				thread := "th-answers-" + string(rune('a'+i))
				u1 := `{"id":"u1","role":"user","content":"send it"}`
				r := first.run(`{"threadId":"` + thread + `","protocolVersion":"1.0","messages":[` + u1 + `]}`)
				mustRun(t, r)
				interrupt := r.Events[len(r.Events)-1]["outcome"].(map[string]any)["interrupts"].([]any)[0].(map[string]any)
				if schema, _ := json.Marshal(interrupt["responseSchema"]); !strings.Contains(string(schema), `"edit"`) ||
					!strings.Contains(string(schema), `"required":["to"]`) {
					t.Fatalf("responseSchema %s", schema)
				}
				resume := func(payload string) reply {
					return second.run(`{"threadId":"` + thread + `","protocolVersion":"1.0","messages":[` + u1 + `],"resume":[{"interruptId":"` +
						interrupt["id"].(string) + `","status":"resolved","payload":` + payload + `}]}`)
				}
				bad := resume(`{"decision":"edit","arguments":{"to":7}}`)
				mustStatus(t, bad, 400)
				if !strings.Contains(string(bad.Body), `"invalid_arguments"`) || !strings.Contains(string(bad.Body), `"pointer":"/to"`) {
					t.Fatalf("bad edit: %s", bad.Body)
				}
				mustStatus(t, resume(`{"decision":"maybe"}`), 400)
				done := resume(answer.payload)
				if last := mustRun(t, done); last["type"] != "RUN_FINISHED" || text(done.Events) != answer.want {
					t.Fatalf("after %s: %s", answer.payload, done.Body)
				}
				if custom := strings.Contains(typesString(done.Events), "CUSTOM") && strings.Contains(string(done.Body), `"name":"approval.resolved"`); custom != (answer.payload != `{"approved":true}`) {
					t.Errorf("after %s the stream does not say how it was answered: %s", answer.payload, done.Body)
				}
			}
		})
	}
}
