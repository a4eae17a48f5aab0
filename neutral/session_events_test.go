package neutral_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/server/servertest"
)

// sessionStream follows GET /sessions/{id}/events on ts (after: the
// Last-Event-ID to resume after, "" for none) and sends its frames on the
// returned channel until it is cancelled or ends.
func sessionStream(t *testing.T, ts *servertest.Server, session, after string) (<-chan sseFrame, context.CancelFunc) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	req := ts.Request("GET", "/sessions/"+session+"/events", "", nil).WithContext(ctx)
	if after != "" {
		req.Header.Set("Last-Event-ID", after)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		cancel()
		t.Fatalf("session stream: status %d", resp.StatusCode)
	}
	out := make(chan sseFrame, 256)
	go func() {
		defer close(out)
		defer resp.Body.Close()
		testutil.EachSSE(resp.Body, func(f sseFrame) bool {
			select {
			case out <- f:
				return true
			case <-ctx.Done():
				return false
			}
		})
	}()
	return out, cancel
}

// nextFrame reads the next frame, bounded.
func nextFrame(t *testing.T, frames <-chan sseFrame) sseFrame {
	t.Helper()
	select {
	case f, ok := <-frames:
		if !ok {
			t.Fatal("the session stream ended")
		}
		return f
	case <-time.After(10 * time.Second):
		t.Fatal("no frame of the session stream within 10 s")
	}
	return sseFrame{}
}

// readUntil reads frames until one satisfies stop (included).
func readUntil(t *testing.T, frames <-chan sseFrame, stop func(sseFrame) bool) []sseFrame {
	t.Helper()
	var got []sseFrame
	for i := 0; i < 200; i++ {
		f := nextFrame(t, frames)
		got = append(got, f)
		if stop(f) {
			return got
		}
	}
	t.Fatal("200 frames without the one awaited")
	return nil
}

// TestSessionStreamAcrossReplicasAndResponses: a session stream opened on
// the other replica while a response runs sees that response from its
// first event, then the next response of the session; dropped mid-way and
// resumed (Last-Event-ID, on the first replica), it goes on with no gap and
// no repeat: the frames are exactly the two responses' logs, in order.
func TestSessionStreamAcrossReplicasAndResponses(t *testing.T) {
	agent := newBlockingAgent()
	servertest.EachStoreReplicas(t, 2, setup{Agent: agent}, func(t *testing.T, rs []*servertest.Server) {
		a, b := rs[0], rs[1]
		mustStatus(t, a.Post("/sessions", `{"id":"ss"}`), 201)
		r1 := a.Post("/responses", `{"input":"one","background":true,"sessionId":"ss"}`)
		mustStatus(t, r1, 200)
		id1 := r1.JSON(t)["id"].(string)
		<-agent.started

		frames, drop := sessionStream(t, b, "ss", "")
		first := nextFrame(t, frames)
		if first.Event != "response.created" || first.ID != "1.0" || first.Data["responseId"] != id1 {
			t.Fatalf("first frame %s %s %v; want response.created 1.0 of %s", first.Event, first.ID, first.Data, id1)
		}
		agent.release <- struct{}{}
		got := append([]sseFrame{first}, readUntil(t, frames, func(f sseFrame) bool { return f.Event == "response.completed" })...)

		r2 := b.Post("/responses", `{"input":"two","background":true,"sessionId":"ss"}`)
		mustStatus(t, r2, 200)
		id2 := r2.JSON(t)["id"].(string)
		<-agent.started
		got = append(got, readUntil(t, frames, func(f sseFrame) bool { return f.Event == "response.text.delta" })...)
		drop()

		last := got[len(got)-1].ID
		agent.release <- struct{}{}
		resumed, stop := sessionStream(t, a, "ss", last)
		defer stop()
		got = append(got, readUntil(t, resumed, func(f sseFrame) bool { return f.Event == "response.completed" })...)

		var want []string
		for n, id := range []string{id1, id2} {
			for _, f := range readFrames(t, strings.NewReader(string(a.Get("/responses/"+id+"/events?sessionId=ss").Body))) {
				want = append(want, fmt.Sprintf("%d.%s %s %s", n+1, f.ID, f.Event, id))
			}
		}
		var have []string
		for _, f := range got {
			have = append(have, fmt.Sprintf("%s %s %s", f.ID, f.Event, f.Data["responseId"]))
		}
		if strings.Join(have, "\n") != strings.Join(want, "\n") {
			t.Fatalf("session stream:\n%s\nwant the two logs:\n%s", strings.Join(have, "\n"), strings.Join(want, "\n"))
		}
	})
}

// TestSessionStreamWaitsForTheNextResponse: opened on an idle session, the
// stream starts with the next response to begin (not the ones before);
// resumed after a response's final event, it goes on with the next one.
func TestSessionStreamWaitsForTheNextResponse(t *testing.T) {
	agent := newBlockingAgent()
	servertest.EachStoreReplicas(t, 2, setup{Agent: agent}, func(t *testing.T, rs []*servertest.Server) {
		a, b := rs[0], rs[1]
		mustStatus(t, a.Post("/sessions", `{"id":"idle"}`), 201)
		done := a.Post("/responses", `{"input":"before","background":true,"sessionId":"idle"}`)
		<-agent.started
		agent.release <- struct{}{}
		waitCompleted(t, a, done.JSON(t)["id"].(string), "idle")

		frames, stop := sessionStream(t, b, "idle", "")
		defer stop()
		next := a.Post("/responses", `{"input":"after","background":true,"sessionId":"idle"}`)
		<-agent.started
		agent.release <- struct{}{}
		f := nextFrame(t, frames)
		if f.ID != "2.0" || f.Data["responseId"] != next.JSON(t)["id"] {
			t.Fatalf("first frame %s of %v, want 2.0 of the next response", f.ID, f.Data["responseId"])
		}
		end := readUntil(t, frames, func(f sseFrame) bool { return f.Event == "response.completed" })
		stop()

		// Resumed after the last response's final event: the next one.
		again, stop2 := sessionStream(t, a, "idle", end[len(end)-1].ID)
		defer stop2()
		third := b.Post("/responses", `{"input":"third","background":true,"sessionId":"idle"}`)
		<-agent.started
		agent.release <- struct{}{}
		if f := nextFrame(t, again); f.ID != "3.0" || f.Data["responseId"] != third.JSON(t)["id"] {
			t.Fatalf("resumed after 2's end: first frame %s of %v, want 3.0 of the third response", f.ID, f.Data["responseId"])
		}
	})
}

// TestSessionStreamRequest: an unknown session is 404, a cursor that is
// not one is 400, before any stream starts; another user's session is 404.
func TestSessionStreamRequest(t *testing.T) {
	eachStore(t, setup{}, func(t *testing.T, ts *testServer) {
		mustStatus(t, ts.Get("/sessions/nope/events"), 404)
		mustStatus(t, ts.Post("/sessions", `{"id":"q"}`), 201)
		for _, bad := range []string{"3", "x.1", "0.1", "1.-2", "1.2.3"} {
			r := ts.Get("/sessions/q/events?after=" + bad)
			mustStatus(t, r, 400)
			if r.JSON(t)["code"] != "invalid_after" {
				t.Errorf("after=%s: %s", bad, r.Body)
			}
		}
	})
}

// waitCompleted polls a receipt until it is completed.
func waitCompleted(t *testing.T, ts *servertest.Server, id, session string) {
	t.Helper()
	for i := 0; i < 500; i++ {
		if ts.Get("/responses/" + id + "?sessionId=" + session).JSON(t)["status"] == "completed" {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("response %s not completed within 10 s", id)
}

// TestSessionStreamEndsWhenTheSessionIsDeleted: a stream waiting for the
// session's next response ends with an error frame once the session is
// deleted (on another replica), instead of waiting forever.
func TestSessionStreamEndsWhenTheSessionIsDeleted(t *testing.T) {
	servertest.EachStoreReplicas(t, 2, setup{}, func(t *testing.T, rs []*servertest.Server) {
		mustStatus(t, rs[0].Post("/sessions", `{"id":"gone"}`), 201)
		frames, stop := sessionStream(t, rs[1], "gone", "")
		defer stop()
		mustStatus(t, rs[0].Do("DELETE", "/sessions/gone", "", nil), 204)
		f := nextFrame(t, frames)
		if f.Event != "error" || f.Data["code"] != "session_not_found" {
			t.Fatalf("frame after the session was deleted: %s %v", f.Event, f.Data)
		}
	})
}
