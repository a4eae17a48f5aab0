package playground_test

import (
	"strings"
	"testing"

	"github.com/harnest/harnest/server/servertest"
)

// The approval card offers what the approval takes: edited arguments (a
// bad edit's refusal shows on the card, which still waits), a result in
// the action's place, and a denial's message, on each transport.
func TestApprovalCardAnswers(t *testing.T) {
	srv := servertest.Start(t, "", servertest.Setup{Folder: testFolder(), Agent: servertest.AnswerAgent()})
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
