package neutral_test

import (
	"strings"
	"testing"
	"time"

	"github.com/harnest/harnest/server/servertest"
)

// POST /responses takes onBusy: a wrong value is a 400 that names the
// field, and stores nothing; reject (the default) answers 409 as before;
// enqueue, sent to the replica that does not run the session's turn,
// answers at once with a queued receipt, which any replica runs once the
// turn ends; the session says it has a queued response meanwhile.
func TestOnBusy(t *testing.T) {
	agent := newBlockingAgent()
	servertest.EachStoreReplicas(t, 2, setup{Agent: agent}, func(t *testing.T, replicas []*servertest.Server) {
		a, b := &testServer{replicas[0]}, &testServer{replicas[1]}
		mustStatus(t, a.Post("/sessions", `{"id":"c"}`), 201)
		bad := b.Post("/responses", `{"input":"y","sessionId":"c","onBusy":"later"}`)
		mustStatus(t, bad, 400)
		if detail, _ := bad.JSON(t)["detail"].(string); !strings.Contains(detail, "onBusy") {
			t.Fatalf("400 detail %q does not name onBusy", detail)
		}
		first := a.Post("/responses", `{"input":"x","sessionId":"c","background":true}`)
		mustStatus(t, first, 200)
		<-agent.started
		mustStatus(t, b.Post("/responses", `{"input":"y","sessionId":"c"}`), 409)
		mustStatus(t, b.Post("/responses", `{"input":"y","sessionId":"c","onBusy":"reject"}`), 409)
		queued := b.Post("/responses", `{"input":"y","sessionId":"c","onBusy":"enqueue","background":true}`)
		mustStatus(t, queued, 200)
		body := queued.JSON(t)
		if body["status"] != "queued" {
			t.Fatalf("queued receipt %v", body)
		}
		id, _ := body["id"].(string)
		status := a.Get("/sessions/c").JSON(t)
		if status["status"] != "running" || status["queued"] != float64(1) {
			t.Fatalf("session status %v", status)
		}
		if listed := a.Get("/sessions/c/responses").JSON(t)["responses"].([]any); len(listed) != 2 {
			t.Fatalf("the session lists %d responses, want 2 (the refused ones are not stored)", len(listed))
		}
		agent.release <- struct{}{}
		<-agent.started // the queued one runs
		agent.release <- struct{}{}
		final := ""
		for deadline := time.Now().Add(10 * time.Second); final != "completed" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			final, _ = b.Get("/responses/" + id + "?sessionId=c").JSON(t)["status"].(string)
		}
		if final != "completed" {
			t.Fatalf("queued response ended %q", final)
		}
	})
}

// A response waiting for an approval holds its session: a message with
// onBusy enqueue is queued behind it (the session says waiting, 1 queued),
// and starts once the approval's answer ends the waiting response.
func TestWaitingTurnIsBusy(t *testing.T) {
	servertest.EachStoreReplicas(t, 2, setup{Agent: servertest.ApprovalAgent()}, func(t *testing.T, replicas []*servertest.Server) {
		a, b := replicas[0], replicas[1]
		env := a.Post("/responses", `{"input":"x"}`).JSON(t)
		aid, sid := requiredAction(t, env)["id"].(string), env["sessionId"].(string)
		mustStatus(t, b.Post("/responses", `{"input":"y","sessionId":"`+sid+`"}`), 409)
		queued := b.Post("/responses", `{"input":"y","sessionId":"`+sid+`","onBusy":"enqueue","background":true}`)
		mustStatus(t, queued, 200)
		qid := queued.JSON(t)["id"].(string)
		if status := a.Get("/sessions/" + sid).JSON(t); status["status"] != "waiting" || status["queued"] != float64(1) {
			t.Fatalf("session while waiting %v", status)
		}
		if got := a.Post("/approvals/"+aid, `{"decision":"approve"}`).JSON(t); got["status"] != "completed" {
			t.Fatalf("approved %v", got)
		}
		status := ""
		for deadline := time.Now().Add(10 * time.Second); status != "requires_action" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			status, _ = a.Get("/responses/" + qid + "?sessionId=" + sid).JSON(t)["status"].(string)
		}
		if status != "requires_action" {
			t.Fatalf("the queued response is %q, want it run up to its own approval", status)
		}
	})
}
