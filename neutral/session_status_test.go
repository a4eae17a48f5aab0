package neutral_test

import (
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/harnest/harnest/server/servertest"
)

// sessionStatus reads GET /sessions/{id}, checks it against the Session
// schema of the server's own OpenAPI document, and returns it.
func sessionStatus(t *testing.T, ts *testServer, id string) map[string]any {
	t.Helper()
	r := ts.Get("/sessions/" + id)
	mustStatus(t, r, 200)
	doc, err := openapi3.NewLoader().LoadFromData(ts.Get("/openapi.json").Body)
	if err != nil {
		t.Fatal(err)
	}
	got := r.JSON(t)
	if err := doc.Components.Schemas["Session"].Value.VisitJSON(got); err != nil {
		t.Fatalf("GET /sessions/%s does not match the Session schema: %v\n%s", id, err, r.Body)
	}
	return got
}

// wantStatus checks a session's status, active response and wait.
func wantStatus(t *testing.T, got map[string]any, status string, active any, waitingOn any) {
	t.Helper()
	if got["status"] != status || got["activeResponseId"] != active || got["queued"] != float64(0) {
		t.Fatalf("status %v, active %v, queued %v; want %s, %v, 0: %v", got["status"], got["activeResponseId"], got["queued"], status, active, got)
	}
	if waitingOn == nil {
		if got["waitingOn"] != nil {
			t.Fatalf("waitingOn %v, want null", got["waitingOn"])
		}
		return
	}
	w, _ := got["waitingOn"].(map[string]any)
	want := waitingOn.([2]string)
	if w["kind"] != want[0] || w["id"] != want[1] {
		t.Fatalf("waitingOn %v, want %v", got["waitingOn"], want)
	}
}

// TestSessionStatusIdleAndRunning: a session with no response is idle; a
// running (background) response makes it running with its ID; it is idle
// again once the response ends. The session's own fields stay as they were.
func TestSessionStatusIdleAndRunning(t *testing.T) {
	agent := newBlockingAgent()
	eachStore(t, setup{Agent: agent}, func(t *testing.T, ts *testServer) {
		mustStatus(t, ts.Post("/sessions", `{"id":"st","state":{"city":"Oslo"}}`), 201)
		got := sessionStatus(t, ts, "st")
		wantStatus(t, got, "idle", nil, nil)
		if got["id"] != "st" || got["state"].(map[string]any)["city"] != "Oslo" || got["createdAt"] == nil {
			t.Fatalf("session fields %v", got)
		}

		r := ts.Post("/responses", `{"input":"x","background":true,"sessionId":"st"}`)
		mustStatus(t, r, 200)
		rid := r.JSON(t)["id"].(string)
		<-agent.started
		wantStatus(t, sessionStatus(t, ts, "st"), "running", rid, nil)

		agent.release <- struct{}{}
		status := ""
		for i := 0; i < 300 && status != "completed"; i++ {
			time.Sleep(10 * time.Millisecond)
			status, _ = ts.Get("/responses/" + rid + "?sessionId=st").JSON(t)["status"].(string)
		}
		if status != "completed" {
			t.Fatalf("receipt %q, want completed", status)
		}
		wantStatus(t, sessionStatus(t, ts, "st"), "idle", nil, nil)
		mustStatus(t, ts.Get("/sessions/missing"), 404)
	})
}

// TestSessionStatusWaiting: a response suspended on an approval, then on
// a client tool, makes its session waiting on that wait, with its ID.
func TestSessionStatusWaiting(t *testing.T) {
	eachStore(t, setup{Agent: servertest.ApprovalAgent()}, func(t *testing.T, ts *testServer) {
		env := ts.Post("/responses", `{"input":"where"}`).JSON(t)
		rid, sid := env["id"].(string), env["sessionId"].(string)
		aid := requiredAction(t, env)["id"].(string)
		wantStatus(t, sessionStatus(t, ts, sid), "waiting", rid, [2]string{"approval", aid})

		next := ts.Post("/approvals/"+aid, `{"decision":"approve"}`)
		mustStatus(t, next, 200)
		tool := requiredAction(t, next.JSON(t))
		if tool["type"] != "client_tool" {
			t.Fatalf("after approval %s", next.Body)
		}
		wantStatus(t, sessionStatus(t, ts, sid), "waiting", rid, [2]string{"client_tool", tool["id"].(string)})

		mustStatus(t, ts.Post("/client-tools/"+tool["id"].(string), `{"output":"Oslo"}`), 200)
		wantStatus(t, sessionStatus(t, ts, sid), "idle", nil, nil)
	})
}

// TestSessionStatusIsScopedToItsUser: another user's session is not found.
func TestSessionStatusIsScopedToItsUser(t *testing.T) {
	eachStore(t, setup{Agent: servertest.ApprovalAgent(), Config: withTokens}, func(t *testing.T, ts *testServer) {
		alice, bob := ts.as("token-alice-0123456789"), ts.as("token-bob-0123456789")
		env := alice.Post("/responses", `{"input":"x"}`).JSON(t)
		sid := env["sessionId"].(string)
		mustStatus(t, bob.Get("/sessions/"+sid), 404)
		wantStatus(t, sessionStatus(t, alice, sid), "waiting", env["id"], [2]string{"approval", requiredAction(t, env)["id"].(string)})
	})
}
