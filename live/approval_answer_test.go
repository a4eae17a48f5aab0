package live_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/server/servertest"
)

// On two replicas: an edit on the socket (a bad one refused first, with
// the approval still waiting), and a respond posted to the other replica,
// which the socket acknowledges once, with the result.
func TestRicherAnswersOnTheSocket(t *testing.T) {
	for _, store := range testutil.Stores(t) {
		t.Run(store.Name, func(t *testing.T) {
			shared := servertest.Shared(t, store.URL, setup{Agent: servertest.AnswerAgent()})
			a := newLiveServer(t, store.URL, shared)
			b := newLiveServer(t, store.URL, shared)
			c, _ := a.connect("")

			c.send(`{"type":"response.create","input":"go"}`)
			frames := c.until("response.completed")
			rid := frames[0]["responseId"].(string)
			approval := frames[1]["approval"].(map[string]any)
			aid := approval["id"].(string)
			if got, _ := json.Marshal(approval["answers"]); string(got) != `["approve","deny","edit","respond"]` {
				t.Fatalf("approval.requested %v", approval)
			}
			decision := `{"type":"approval.decision","responseId":"` + rid + `","approvalId":"` + aid + `",`
			c.send(decision + `"decision":"edit","arguments":{"to":5}}`)
			if f := c.next(); f["type"] != "error" || f["code"] != "invalid_arguments" || f["sequence"] != nil ||
				f["violations"].([]any)[0].(map[string]any)["pointer"] != "/to" {
				t.Fatalf("a bad edit was answered %v", f)
			}
			c.send(decision + `"decision":"edit","arguments":{"to":"bob"}}`)
			rest := c.until("response.completed")
			if names(rest) != "approval.resolved,response.text.delta,response.completed" {
				t.Fatalf("after the edit %s", names(rest))
			}
			if r := rest[0]; r["decision"] != "edit" || r["arguments"].(map[string]any)["to"] != "bob" {
				t.Fatalf("approval.resolved %v", r)
			}
			if text := rest[1]["delta"].(string); text != `{"decision":"edit","arguments":{"to":"bob"}}` {
				t.Fatalf("the agent got %s", text)
			}

			c.send(`{"type":"response.create","input":"again"}`)
			frames = c.until("response.completed")
			aid = frames[1]["approval"].(map[string]any)["id"].(string)
			if r := b.post("/approvals/"+aid, `{"decision":"respond","result":{"sent":false}}`); r.Status != 200 {
				t.Fatalf("respond through B: %d %s", r.Status, r.Body)
			}
			rest = c.until("response.completed")
			if names(rest) != "approval.resolved,response.text.delta,response.completed" {
				t.Fatalf("socket on A after B's answer %s", names(rest))
			}
			if r := rest[0]; r["decision"] != "respond" || !strings.Contains(string(mustMarshal(r["result"])), `"sent":false`) {
				t.Fatalf("approval.resolved %v", r)
			}
		})
	}
}

func mustMarshal(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
