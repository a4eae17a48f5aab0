package neutral_test

import "testing"

// A steer is refused with a code that says why, and nothing is kept: the
// agent takes no steers (steer_unsupported), the body is not a steer
// (400), the response is unknown (404).
func TestSteerRefusals(t *testing.T) {
	agent := newBlockingAgent()
	eachStore(t, setup{Agent: agent}, func(t *testing.T, ts *testServer) {
		mustStatus(t, ts.Post("/sessions", `{"id":"st"}`), 201)
		r := ts.Post("/responses", `{"input":"x","background":true,"sessionId":"st"}`)
		mustStatus(t, r, 200)
		rid := r.JSON(t)["id"].(string)
		<-agent.started
		steer := ts.Post("/responses/"+rid+"/steer?sessionId=st", `{"input":"left"}`)
		mustStatus(t, steer, 409)
		if steer.JSON(t)["code"] != "steer_unsupported" {
			t.Errorf("steer of an agent without steering: %s", steer.Body)
		}
		for _, bad := range []string{`{}`, `{"input":""}`, `{"input":"x","stream":true}`, `{"input":[]}`, `[]`} {
			mustStatus(t, ts.Post("/responses/"+rid+"/steer?sessionId=st", bad), 400)
		}
		mustStatus(t, ts.Post("/responses/"+rid+"/steer", `{"input":"left"}`), 400)
		mustStatus(t, ts.Post("/responses/resp_nope/steer?sessionId=st", `{"input":"left"}`), 404)
		agent.release <- struct{}{}
		waitCompleted(t, ts.Server, rid, "st")
		if got := ts.Get("/sessions/st/messages").JSON(t)["messages"].([]any); len(got) != 2 {
			t.Errorf("transcript after refused steers: %v", got)
		}
	})
}
