package trigger_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/server/servertest"
)

// TestGoodSignaturesStartTurns: a Standard Webhooks delivery and a GitHub
// delivery each start a background turn as the trigger's user, with the
// input their templates make; a session key names one session for every
// delivery with that key.
func TestGoodSignaturesStartTurns(t *testing.T) {
	servertest.EachStore(t, servertest.Setup{Config: triggers}, func(t *testing.T, ts *servertest.Server) {
		rid, sid := accepted(t, sendStandard(t, ts, "msg_1", `{"text":"hello there","ticket":42}`), "started")
		if sid != "ticket-42" {
			t.Fatalf("session %q, want ticket-42", sid)
		}
		env := receiptUntil(t, ts, sid, rid, "completed")
		if !strings.Contains(env["outputText"].(string), "hello there") {
			t.Fatalf("receipt %v does not answer the input", env)
		}
		rid2, sid2 := accepted(t, sendStandard(t, ts, "msg_2", `{"text":"second","ticket":42}`), "started")
		if sid2 != sid || rid2 == rid {
			t.Fatalf("second delivery: session %s response %s", sid2, rid2)
		}
		receiptUntil(t, ts, sid2, rid2, "completed")

		rid3, sid3 := accepted(t, sendGitHub(t, ts, "72d3162e-cc78-11e3-81ab-4c9367dc0958", `{"action":"opened","issue":{"title":"Crash on start"}}`), "started")
		env = receiptUntil(t, ts, sid3, rid3, "completed")
		if !strings.Contains(env["outputText"].(string), "New issue Crash on start") || sid3 == sid {
			t.Fatalf("GitHub turn: %v in session %s", env, sid3)
		}
		// Several signatures, one of them valid (a secret being rotated).
		body := `{"text":"rotated","ticket":"7"}`
		stamp := now()
		r := ts.Do("POST", "/triggers/hooks", "application/json", []byte(body), "webhook-id", "msg_3", "webhook-timestamp", stamp,
			"webhook-signature", standardSignature(t, otherSecret, "msg_3", stamp, []byte(body))+" v1a,abcd "+standardSignature(t, standardSecret, "msg_3", stamp, []byte(body)))
		accepted(t, r, "started")
		// A key that is no valid session ID (a space) names a session by its hash, the same each time.
		oddRID, odd := accepted(t, sendStandard(t, ts, "msg_4", `{"text":"odd","ticket":"a b"}`), "started")
		receiptUntil(t, ts, odd, oddRID, "completed")
		_, again := accepted(t, sendStandard(t, ts, "msg_5", `{"text":"odd again","ticket":"a b"}`), "started")
		if !strings.HasPrefix(odd, "trigger-hooks-") || again != odd {
			t.Fatalf("sessions %q and %q, want one trigger-hooks-<hash>", odd, again)
		}
		// The turns are alice's, not the anonymous user's.
		page, err := ts.Srv.Service.ListSessions(context.Background(), runtime.Anonymous, "", 10)
		if err != nil || len(page.Sessions) != 0 {
			t.Fatalf("anonymous sessions %v, %v", page.Sessions, err)
		}
		if meta := env["metadata"]; meta != nil {
			if m, _ := json.Marshal(meta); !strings.Contains(string(m), `"trigger":"gh"`) {
				t.Fatalf("metadata %s does not name the trigger", m)
			}
		}
	})
}

// TestTriggerResumesWaitingTurns: a turn a delivery started waits for an
// approval, then a client tool; later deliveries name each wait and
// answer it, and the turn completes.
func TestTriggerResumesWaitingTurns(t *testing.T) {
	servertest.EachStore(t, servertest.Setup{Config: triggers, Agent: servertest.ApprovalAgent()}, func(t *testing.T, ts *servertest.Server) {
		rid, sid := accepted(t, sendStandard(t, ts, "msg_start", `{"text":"reply to bob, from where?","ticket":"9"}`), "started")
		env := receiptUntil(t, ts, sid, rid, "requires_action")
		aid := env["requiredAction"].(map[string]any)["id"].(string)

		// A payload that names the wait without an answer maps to nothing.
		servertest.MustStatus(t, sendStandard(t, ts, "msg_bad", `{"approvalId":"`+aid+`"}`), 400)
		// Another user's wait is not this trigger's to answer.
		servertest.MustStatus(t, sendStandard(t, ts, "msg_unknown", `{"approvalId":"approval_unknown","approved":true}`), 404)

		// The refused deliveries were not remembered: their IDs still work.
		r := sendStandard(t, ts, "msg_unknown", `{"approvalId":"`+aid+`","approved":"approve"}`)
		gotRID, gotSID := accepted(t, r, "answered")
		if gotRID != rid || gotSID != sid || r.JSON(t)["waitId"] != aid {
			t.Fatalf("answer %s, want response %s in %s", r.Body, rid, sid)
		}
		action := nextAction(t, ts, sid, rid, aid)
		if action["name"] != "get_location" {
			t.Fatalf("required action %v, want the client tool get_location", action)
		}
		tid := action["id"].(string)
		accepted(t, sendGitHub(t, ts, "gh-tool-1", `{"approvalId":"`+tid+`","output":{"city":"Lyon"}}`), "answered")
		env = receiptUntil(t, ts, sid, rid, "completed")
		if text := env["outputText"].(string); !strings.Contains(text, "Sent.") || !strings.Contains(text, "Lyon") {
			t.Fatalf("final receipt %v", env)
		}
		// Answering again: the wait is resolved (409), and the delivery is
		// not remembered, so nothing is left half done.
		servertest.MustStatus(t, sendStandard(t, ts, "msg_again", `{"approvalId":"`+aid+`","approved":false}`), 409)
	})
}

// nextAction polls alice's receipt until it requires an action other
// than the one with ID after, and returns it.
func nextAction(t *testing.T, ts *servertest.Server, sessionID, responseID, after string) map[string]any {
	t.Helper()
	for range 750 {
		env := receiptUntil(t, ts, sessionID, responseID, "requires_action")
		if action := env["requiredAction"].(map[string]any); action["id"] != after {
			return action
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("response %s never required another action than %s", responseID, after)
	return nil
}

// TestAnswerArrivesAtAnotherReplica: the turn a delivery started on one
// replica waits; the delivery that answers it reaches another replica of
// the same store, and the turn completes.
func TestAnswerArrivesAtAnotherReplica(t *testing.T) {
	servertest.EachStoreReplicas(t, 2, servertest.Setup{Config: triggers, Agent: servertest.ApprovalAgent()}, func(t *testing.T, replicas []*servertest.Server) {
		a, b := replicas[0], replicas[1]
		rid, sid := accepted(t, sendStandard(t, a, "msg_a", `{"text":"reply to bob","ticket":"cross"}`), "started")
		aid := receiptUntil(t, b, sid, rid, "requires_action")["requiredAction"].(map[string]any)["id"].(string)
		accepted(t, sendGitHub(t, b, "gh-b", `{"approvalId":"`+aid+`","approved":true}`), "answered")
		if env := receiptUntil(t, a, sid, rid, "completed"); env["outputText"] != "Drafted. Sent." {
			t.Fatalf("final receipt %v", env)
		}
	})
}
