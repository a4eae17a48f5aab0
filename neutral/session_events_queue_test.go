package neutral_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/harnest/harnest/server/servertest"
)

// TestSessionStreamFollowsTheQueue: a session stream opened on the other
// replica while a response runs and two more wait in the session's queue
// (onBusy: enqueue) sees the running response from its first event, then
// the queued ones in the order they were accepted; the frames are exactly
// the three logs, with no gap and no repeat.
func TestSessionStreamFollowsTheQueue(t *testing.T) {
	agent := newBlockingAgent()
	servertest.EachStoreReplicas(t, 2, setup{Agent: agent}, func(t *testing.T, rs []*servertest.Server) {
		a, b := rs[0], rs[1]
		mustStatus(t, a.Post("/sessions", `{"id":"sq"}`), 201)
		r1 := a.Post("/responses", `{"input":"one","background":true,"sessionId":"sq"}`)
		mustStatus(t, r1, 200)
		ids := []string{r1.JSON(t)["id"].(string)}
		<-agent.started
		for i, ts := range []*servertest.Server{b, a} {
			r := ts.Post("/responses", fmt.Sprintf(`{"input":"queued %d","background":true,"sessionId":"sq","onBusy":"enqueue"}`, i))
			mustStatus(t, r, 200)
			body := r.JSON(t)
			if body["status"] != "queued" {
				t.Fatalf("queued response: status %v, want queued", body["status"])
			}
			ids = append(ids, body["id"].(string))
		}

		frames, stop := sessionStream(t, b, "sq", "")
		defer stop()
		var got []sseFrame
		for range ids {
			agent.release <- struct{}{}
			got = append(got, readUntil(t, frames, func(f sseFrame) bool { return f.Event == "response.completed" })...)
			if len(got) > 0 && got[len(got)-1].Data["responseId"] == ids[len(ids)-1] {
				break
			}
		}
		for i := 1; i < len(ids); i++ {
			waitCompleted(t, a, ids[i], "sq")
		}

		var want []string
		for _, id := range ids {
			for _, f := range readFrames(t, strings.NewReader(string(a.Get("/responses/"+id+"/events?sessionId=sq").Body))) {
				want = append(want, fmt.Sprintf("%s %s %s", f.ID, f.Event, id))
			}
		}
		var have []string
		for _, f := range got {
			id := f.ID[strings.IndexByte(f.ID, '.')+1:]
			have = append(have, fmt.Sprintf("%s %s %s", id, f.Event, f.Data["responseId"]))
		}
		if strings.Join(have, "\n") != strings.Join(want, "\n") {
			t.Fatalf("session stream:\n%s\nwant the three logs in order:\n%s", strings.Join(have, "\n"), strings.Join(want, "\n"))
		}
	})
}
