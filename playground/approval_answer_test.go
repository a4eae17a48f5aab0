package playground_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/server/servertest"
)

// answerAgent asks for an approval that takes every answer (its arguments
// must match a schema) and answers with the answer it got, as JSON.
func answerAgent() runtime.Agent {
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

// The approval card offers what the approval takes: edited arguments (a
// bad edit's refusal shows on the card, which still waits), a result in
// the action's place, and a denial's message, on each transport.
func TestApprovalCardAnswers(t *testing.T) {
	srv := servertest.Start(t, "", servertest.Setup{Folder: testFolder(), Agent: answerAgent()})
	tb := openTab(t, srv, "/")
	card := `[...document.querySelectorAll('.card.approval')].at(-1)`

	tb.send("JSON", "edit it")
	tb.find("textbox", "Edited arguments")
	tb.do(chromedpSetValue("Edited arguments", `{"to": 7}`))
	tb.click("button", "Run with these arguments")
	tb.waitFor("the refusal on the card", card+`.querySelector('p.error').textContent.includes('/to')`)
	tb.do(chromedpSetValue("Edited arguments", `{"to": "bob"}`))
	tb.click("button", "Run with these arguments")
	if got := tb.waitAnswer(0, `{"decision":"edit","arguments":{"to":"bob"}}`); !strings.Contains(got, `"bob"`) {
		t.Errorf("edit: answer %q", got)
	}
	tb.waitFor("the decided card", card+`.textContent.includes('Approved with edited arguments')`)

	for i, transport := range []string{"SSE", "AG-UI"} {
		tb.send(transport, "respond "+transport)
		tb.find("textbox", "Result")
		tb.do(chromedpSetValue("Result", `{"sent": false}`))
		tb.click("button", "Answer in its place")
		want := `{"decision":"respond","result":{"sent":false}}`
		if got := tb.waitAnswer(i+1, want); got != want {
			t.Errorf("%s respond: answer %q", transport, got)
		}
	}

	tb.send("Live", "deny it")
	tb.find("textbox", "Denial message")
	tb.typeText("textbox", "Denial message", "not today")
	tb.click("button", "Deny")
	if got := tb.waitAnswer(3, `{"decision":"deny","message":"not today"}`); !strings.Contains(got, "not today") {
		t.Errorf("deny: answer %q", got)
	}
}
