package backend_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/internal/testutil/fakemodel"
	"github.com/harnest/harnest/server/servertest"
)

// Richer approval answers (runtime/approval_answer.go) through the model
// backend's tool loop, on two replicas of one store: the turn starts on
// the first, the human answers on the second, and the fake model sees
// what the answer made of the call.

// sendTool is an approval tool with a schema: edited arguments must match
// it. It echoes its arguments (cat), so the model sees what it ran with.
var sendTool = config.Tool{
	Name: "send", Description: "Sends a message once a human approved.",
	Parameters: config.JSONValue(`{"type":"object","properties":{"to":{"type":"string"},"count":{"type":"integer"}},"required":["to"],"additionalProperties":false}`),
	Exec:       &config.ToolExec{Command: []string{"cat"}}, Approval: true,
}

// approvalReplicas runs fn on two replicas of each store, with the send
// tool and a fake endpoint.
func approvalReplicas(t *testing.T, fn func(t *testing.T, first, second *servertest.Server, fake *fakemodel.Server)) {
	for _, c := range testutil.Stores(t) {
		t.Run(c.Name, func(t *testing.T) {
			fake := fakemodel.Start(t)
			rs := servertest.Replicas(t, c.URL, 2, servertest.Setup{Folder: "testdata/model", Config: func(cfg *config.Config) {
				cfg.Spec.Backend.Model.BaseURL = fake.URL
				cfg.Spec.Tools = append(cfg.Spec.Tools, sendTool)
			}})
			fn(t, rs[0], rs[1], fake)
		})
	}
}

// askSend starts a turn on ts whose model calls send with args; it returns
// the requires_action envelope.
func askSend(t *testing.T, ts *servertest.Server, fake *fakemodel.Server, args, then string) map[string]any {
	t.Helper()
	fake.Script(fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "call_s", Name: "send", Arguments: args}}},
		fakemodel.Reply{Text: then})
	r := ts.Post("/responses", `{"input":"send it"}`)
	servertest.MustStatus(t, r, 200)
	env := r.JSON(t)
	if env["status"] != "requires_action" {
		t.Fatalf("envelope = %s", r.Body)
	}
	return env
}

// toolAnswer is what the model was told of call_s in its last request.
func toolAnswer(t *testing.T, fake *fakemodel.Server, calls int) string {
	t.Helper()
	reqs := fake.Requests()
	if len(reqs) != calls {
		t.Fatalf("%d model calls, want %d", len(reqs), calls)
	}
	for _, m := range reqs[calls-1].Messages {
		if m.Role == "tool" && m.ToolCallID == "call_s" {
			return m.Text()
		}
	}
	t.Fatalf("the model was not told of call_s: %+v", reqs[calls-1].Messages)
	return ""
}

// resolution is the approval_resolved item of an answer's output.
func resolution(t *testing.T, env map[string]any) map[string]any {
	t.Helper()
	for _, item := range env["output"].([]any) {
		if m := item.(map[string]any); m["type"] == "approval_resolved" {
			return m["resolution"].(map[string]any)
		}
	}
	t.Fatalf("no approval_resolved item in the output: %v", env["output"])
	return nil
}

func TestModelApprovalEditOnTwoReplicas(t *testing.T) {
	approvalReplicas(t, func(t *testing.T, first, second *servertest.Server, fake *fakemodel.Server) {
		env := askSend(t, first, fake, `{"to":"alice"}`, "Sent to Bob.")
		action := env["requiredAction"].(map[string]any)
		if got, _ := json.Marshal(action["answers"]); string(got) != `["approve","deny","edit","respond"]` || action["argumentsSchema"] == nil {
			t.Fatalf("the approval does not offer edit and respond with the schema: %v", action)
		}
		id, session, responseID := action["id"].(string), env["sessionId"].(string), env["id"].(string)

		// Arguments that break the tool's schema are refused, with their
		// pointers, and change nothing.
		bad := second.Post("/approvals/"+id, `{"decision":"edit","arguments":{"count":"three","cc":"eve"}}`)
		servertest.MustStatus(t, bad, 400)
		refusal := bad.JSON(t)
		pointers := map[string]bool{}
		for _, v := range refusal["violations"].([]any) {
			pointers[v.(map[string]any)["pointer"].(string)] = true
		}
		if refusal["code"] != "invalid_arguments" || !pointers[""] || !pointers["/count"] {
			t.Fatalf("refusal = %s", bad.Body)
		}
		for _, body := range []string{`{"decision":"edit"}`, `{"decision":"edit","arguments":[1]}`, `{"decision":"approve","message":"x"}`,
			`{"decision":"respond"}`, `{"decision":"maybe"}`, `{"decision":"deny","message":7}`} {
			servertest.MustStatus(t, second.Post("/approvals/"+id, body), 400)
		}
		receipt := first.Get("/responses/" + responseID + "?sessionId=" + session)
		if got := receipt.JSON(t); got["status"] != "requires_action" || len(fake.Requests()) != 1 {
			t.Fatalf("a refused answer changed the response: %s (%d model calls)", receipt.Body, len(fake.Requests()))
		}

		r := second.Post("/approvals/"+id, `{"decision":"edit","arguments":{"to":"bob","count":2}}`)
		servertest.MustStatus(t, r, 200)
		done := r.JSON(t)
		if done["status"] != "completed" || done["outputText"] != "Sent to Bob." {
			t.Fatalf("after the edit: %s", r.Body)
		}
		if told := toolAnswer(t, fake, 2); !strings.Contains(told, `"to":"bob"`) || strings.Contains(told, "alice") {
			t.Errorf("the tool did not run with the edited arguments: the model was told %q", told)
		}
		res := resolution(t, done)
		if res["decision"] != "edit" || res["edited"] != true || res["id"] != id ||
			!equalJSON(res["arguments"], map[string]any{"to": "bob", "count": 2.0}) || !equalJSON(res["originalArguments"], map[string]any{"to": "alice"}) {
			t.Errorf("resolution = %v", res)
		}
		// The transcript keeps the edit beside the call and its result.
		messages := first.Get("/sessions/" + session + "/messages")
		servertest.MustStatus(t, messages, 200)
		if !strings.Contains(string(messages.Body), `"type":"approval_resolved"`) || !strings.Contains(string(messages.Body), `"edited":true`) {
			t.Errorf("the transcript does not say the arguments were edited: %s", messages.Body)
		}
		// An answer never changes: a second one is a conflict.
		servertest.MustStatus(t, second.Post("/approvals/"+id, `{"decision":"approve"}`), 409)
	})
}

func TestModelApprovalRespondOnTwoReplicas(t *testing.T) {
	approvalReplicas(t, func(t *testing.T, first, second *servertest.Server, fake *fakemodel.Server) {
		env := askSend(t, first, fake, `{"to":"alice"}`, "Alice is away.")
		id := env["requiredAction"].(map[string]any)["id"].(string)
		r := second.Post("/approvals/"+id, `{"decision":"respond","result":{"delivered":false,"note":"alice is on leave"}}`)
		servertest.MustStatus(t, r, 200)
		done := r.JSON(t)
		if done["status"] != "completed" || done["outputText"] != "Alice is away." {
			t.Fatalf("after respond: %s", r.Body)
		}
		if told := toolAnswer(t, fake, 2); told != `{"delivered":false,"note":"alice is on leave"}` {
			t.Errorf("the model was told %q, want the given result in the tool's place", told)
		}
		if res := resolution(t, done); res["decision"] != "respond" || !equalJSON(res["result"], map[string]any{"delivered": false, "note": "alice is on leave"}) {
			t.Errorf("resolution = %v", res)
		}
		for _, item := range done["output"].([]any) {
			if m := item.(map[string]any); m["type"] == "tool_result" && strings.Contains(string(mustJSON(t, m["output"])), "alice\"") {
				t.Errorf("the tool ran: %v", m)
			}
		}
	})
}

func TestModelApprovalDenyWithMessageOnTwoReplicas(t *testing.T) {
	approvalReplicas(t, func(t *testing.T, first, second *servertest.Server, fake *fakemodel.Server) {
		env := askSend(t, first, fake, `{"to":"alice"}`, "I will not send it.")
		id := env["requiredAction"].(map[string]any)["id"].(string)
		r := second.Post("/approvals/"+id, `{"decision":"deny","message":"not before Monday"}`)
		servertest.MustStatus(t, r, 200)
		done := r.JSON(t)
		if done["status"] != "completed" || done["outputText"] != "I will not send it." {
			t.Fatalf("after the denial: %s", r.Body)
		}
		if told := toolAnswer(t, fake, 2); !strings.Contains(told, "denied") || !strings.Contains(told, "not before Monday") {
			t.Errorf("the model was told %q, want the denial with its message", told)
		}
		if res := resolution(t, done); res["decision"] != "deny" || res["message"] != "not before Monday" {
			t.Errorf("resolution = %v", res)
		}
	})
}

func TestModelApprovalApproveOnTwoReplicas(t *testing.T) {
	approvalReplicas(t, func(t *testing.T, first, second *servertest.Server, fake *fakemodel.Server) {
		env := askSend(t, first, fake, `{"to":"alice"}`, "Sent.")
		id := env["requiredAction"].(map[string]any)["id"].(string)
		r := second.Post("/approvals/"+id, `{"decision":"approve"}`)
		servertest.MustStatus(t, r, 200)
		if done := r.JSON(t); done["status"] != "completed" || strings.Contains(string(r.Body), "approval_resolved") {
			t.Fatalf("after approval: %s", r.Body)
		}
		if told := toolAnswer(t, fake, 2); !strings.Contains(told, `"to":"alice"`) {
			t.Errorf("the model was told %q", told)
		}
	})
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
