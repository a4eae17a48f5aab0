package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/harnest/harnest/internal/testutil/fakemodel"
)

// Richer approval answers (runtime/approval_answer.go) with real binaries
// on real Redis: a model turn suspended on a tool's approval, whose only
// replica is SIGKILLed, is answered with edited arguments on another
// replica, which runs it again from its journal with the edit (kept with
// the wait); and a result given in the tool's place on a live pair of
// replicas. The fake model sees the edited arguments, and the given
// result.

// answersFolder is a model agent folder against url with one approval
// tool, send, that echoes its arguments (cat).
func answersFolder(t *testing.T, url string) string {
	t.Helper()
	dir := t.TempDir()
	cfg := fmt.Sprintf(`apiVersion: harnest.dev/v1alpha1
kind: Agent
metadata:
  name: answers-e2e
spec:
  backend:
    model:
      baseUrl: %s
      model: e2e-model
      apiKey: sk-answers
      timeoutSeconds: 20
      maxSteps: 4
  tools:
    - name: send
      description: Sends a message once a human approved.
      parameters: {type: object, properties: {to: {type: string}}, required: [to]}
      exec: {command: [cat]}
      approval: true
%s`, url, prefixed(t))
	return writeModelFolder(t, dir, cfg)
}

func TestApprovalAnswersAcrossReplicas(t *testing.T) {
	t.Parallel()
	url := realRedis(t)
	fake := fakemodel.Start(t)
	fake.SetDefault(func(req fakemodel.Request) fakemodel.Reply {
		for _, m := range req.Messages {
			if m.Role == "tool" {
				return fakemodel.Reply{Text: "Told: " + m.Text()}
			}
		}
		return fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "s1", Name: "send", Arguments: `{"to":"alice"}`}}}
	})
	dir := answersFolder(t, fake.URL)
	a := startHarnest(t, dir, nil, "--redis-url", url)
	b := startHarnest(t, dir, nil, "--redis-url", url)
	c := startHarnest(t, dir, nil, "--redis-url", url)

	// Edit, after the holder died: a bad edit is refused, the good one
	// runs the tool with the new arguments.
	v, action := pendingAction(t, a.post(t, "/responses", `{"input":"go"}`), "human_approval")
	a.kill(t)
	path := "/approvals/" + action["id"].(string)
	if r := b.post(t, path, `{"decision":"edit","arguments":{"to":5}}`); r.Status != 400 || !strings.Contains(string(r.Body), `"pointer":"/to"`) {
		t.Fatalf("a bad edit: %d %s", r.Status, r.Body)
	}
	done := completed(t, b.post(t, path, `{"decision":"edit","arguments":{"to":"bob"}}`))
	if done["outputText"] != `Told: {"to":"bob"}` || done["id"] != v["id"] {
		t.Fatalf("after the edit: %v", done)
	}
	if b, _ := json.Marshal(done["output"]); !strings.Contains(string(b), `"edited":true`) {
		t.Errorf("the output does not say the arguments were edited: %s", b)
	}
	mustHoldTurnOnce(t, b, v["sessionId"].(string))

	// Respond, on the other live replica: the tool does not run, the
	// model sees the given result.
	_, action = pendingAction(t, b.post(t, "/responses", `{"input":"again"}`), "human_approval")
	done = completed(t, c.post(t, "/approvals/"+action["id"].(string), `{"decision":"respond","result":{"sent":false}}`))
	if done["outputText"] != `Told: {"sent":false}` {
		t.Fatalf("after respond: %v", done)
	}
	b.mustStop(t)
	c.mustStop(t)
}
