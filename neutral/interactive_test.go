package neutral_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/server/servertest"
)

func requiredAction(t *testing.T, env map[string]any) map[string]any {
	t.Helper()
	if env["status"] != "requires_action" {
		t.Fatalf("status %v, want requires_action: %v", env["status"], env)
	}
	return env["requiredAction"].(map[string]any)
}

func TestApprovalRoundTrip(t *testing.T) {
	eachStore(t, setup{Agent: servertest.ApprovalAgent()}, func(t *testing.T, ts *testServer) {
		r := ts.Post("/responses", `{"input":"reply to bob"}`)
		mustStatus(t, r, 200)
		env := r.JSON(t)
		action := requiredAction(t, env)
		if action["type"] != "human_approval" || action["action"] != "send" || action["callId"] != env["id"] || action["expiresAt"] == nil {
			t.Fatalf("required action %v", action)
		}
		rid, sid, aid := env["id"].(string), env["sessionId"].(string), action["id"].(string)
		// The receipt says the same while it waits; the session is held.
		if got := ts.Get("/responses/" + rid + "?sessionId=" + sid); string(got.Body) != string(r.Body) {
			t.Fatalf("receipt while waiting %s, want %s", got.Body, r.Body)
		}
		mustStatus(t, ts.Post("/responses", `{"input":"again","sessionId":"`+sid+`"}`), 409)

		for _, body := range []string{`{}`, `{"decision":"yes"}`, `{"decision":"approve","x":1}`, `{"decision":true}`} {
			mustStatus(t, ts.Post("/approvals/"+aid, body), 400)
		}
		mustStatus(t, ts.Post("/approvals/approval_unknown", `{"decision":"approve"}`), 404)

		done := ts.Post("/approvals/"+aid, `{"decision":"approve"}`)
		mustStatus(t, done, 200)
		final := done.JSON(t)
		if final["id"] != rid || final["status"] != "completed" || final["outputText"] != "Drafted. Sent." || final["approvalId"] != aid {
			t.Fatalf("after approval %s", done.Body)
		}
		if got := ts.Get("/responses/" + rid + "?sessionId=" + sid); string(got.Body) != string(done.Body) {
			t.Fatalf("receipt %s differs from the approval's answer %s", got.Body, done.Body)
		}
		second := ts.Post("/approvals/"+aid, `{"decision":"deny"}`)
		mustStatus(t, second, 409)
		if !strings.Contains(string(second.Body), "already approved") {
			t.Fatalf("second decision %s", second.Body)
		}
		msgs := ts.Get("/sessions/" + sid + "/messages").JSON(t)["messages"].([]any)
		if len(msgs) != 2 {
			t.Fatalf("transcript after approval %v", msgs)
		}
	})
}

func TestApprovalDenied(t *testing.T) {
	eachStore(t, setup{Agent: servertest.ApprovalAgent()}, func(t *testing.T, ts *testServer) {
		env := ts.Post("/responses", `{"input":"x"}`).JSON(t)
		aid := requiredAction(t, env)["id"].(string)
		r := ts.Post("/approvals/"+aid, `{"decision":"deny"}`)
		mustStatus(t, r, 200)
		if got := r.JSON(t); got["id"] != aid || got["status"] != "denied" {
			t.Fatalf("deny answer %s", r.Body)
		}
		path := "/responses/" + env["id"].(string) + "?sessionId=" + env["sessionId"].(string)
		var receipt map[string]any
		for i := 0; i < 200; i++ {
			receipt = ts.Get(path).JSON(t)
			if receipt["status"] == "denied" {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		if receipt["status"] != "denied" || receipt["approvalId"] != aid || receipt["outputText"] != "" {
			t.Fatalf("denied receipt %v", receipt)
		}
		// The session is free again.
		r2 := ts.Post("/responses", `{"input":"next","sessionId":"`+env["sessionId"].(string)+`"}`)
		mustStatus(t, r2, 200)
	})
}

func TestChainedApprovalAndClientTool(t *testing.T) {
	eachStore(t, setup{Agent: servertest.ApprovalAgent()}, func(t *testing.T, ts *testServer) {
		frames, _ := ts.stream(`{"input":"where am I","stream":true}`)
		names := frameNames(frames)
		if strings.Join(names, ",") != "response.created,response.text.delta,approval.requested,response.completed" {
			t.Fatalf("first segment %v", names)
		}
		last := frames[len(frames)-1].Data
		aid := last["requiredAction"].(map[string]any)["id"].(string)
		next := ts.Post("/approvals/"+aid, `{"decision":"approve"}`)
		mustStatus(t, next, 200)
		tool := requiredAction(t, next.JSON(t))
		if tool["type"] != "client_tool" || tool["name"] != "get_location" {
			t.Fatalf("second action %v", tool)
		}
		tid := tool["id"].(string)
		mustStatus(t, ts.Post("/client-tools/"+tid, `{"result":1}`), 400)
		mustStatus(t, ts.Post("/approvals/"+tid, `{"decision":"approve"}`), 404) // a client tool is not an approval
		done := ts.Post("/client-tools/"+tid, `{"output":"Oslo"}`)
		mustStatus(t, done, 200)
		final := done.JSON(t)
		if final["status"] != "completed" || final["outputText"] != `Drafted. Sent. From "Oslo".` || final["clientToolId"] != tid {
			t.Fatalf("final %s", done.Body)
		}
		mustStatus(t, ts.Post("/client-tools/"+tid, `{"output":"again"}`), 409)

		// The whole response, both segments, replays from the event log.
		rid, sid := last["responseId"].(string), last["sessionId"].(string)
		all := ts.events(rid, sid, "")
		names = frameNames(all)
		if names[0] != "response.created" || names[len(names)-1] != "response.completed" {
			t.Fatalf("replay %v", names)
		}
		for i, f := range all {
			if int(f.Data["sequence"].(float64)) != i {
				t.Fatalf("replay frame %d: %s", i, f.Raw)
			}
		}
		if strings.Count(strings.Join(names, ","), "response.completed") != 3 {
			t.Fatalf("replay should hold two requires_action boundaries and the completion: %v", names)
		}
	})
}

func TestApprovalExpires(t *testing.T) {
	tune := func(o *runtime.Options) { o.ApprovalTTL = 300 * time.Millisecond }
	eachStore(t, setup{Agent: servertest.ApprovalAgent(), Tune: tune}, func(t *testing.T, ts *testServer) {
		env := ts.Post("/responses", `{"input":"x"}`).JSON(t)
		aid := requiredAction(t, env)["id"].(string)
		path := "/responses/" + env["id"].(string) + "?sessionId=" + env["sessionId"].(string)
		status := ""
		for i := 0; i < 300 && status != "denied"; i++ {
			time.Sleep(10 * time.Millisecond)
			status, _ = ts.Get(path).JSON(t)["status"].(string)
		}
		if status != "denied" {
			t.Fatalf("expired approval left the receipt %q", status)
		}
		r := ts.Post("/approvals/"+aid, `{"decision":"approve"}`)
		mustStatus(t, r, 409)
		if !strings.Contains(string(r.Body), "expired") {
			t.Fatalf("late decision %s", r.Body)
		}
	})
}

func TestApprovalsAreScopedToTheirUser(t *testing.T) {
	eachStore(t, setup{Agent: servertest.ApprovalAgent(), Config: withTokens}, func(t *testing.T, ts *testServer) {
		alice, bob := ts.as("token-alice-0123456789"), ts.as("token-bob-0123456789")
		env := alice.Post("/responses", `{"input":"x"}`).JSON(t)
		aid := requiredAction(t, env)["id"].(string)
		mustStatus(t, bob.Post("/approvals/"+aid, `{"decision":"approve"}`), 404)
		mustStatus(t, bob.Post("/responses/"+env["id"].(string)+"/cancel?sessionId="+env["sessionId"].(string), ``), 404)
		mustStatus(t, alice.Post("/approvals/"+aid, `{"decision":"approve"}`), 200)
	})
}

func TestCancelEndpoint(t *testing.T) {
	agent := newBlockingAgent()
	eachStore(t, setup{Agent: agent}, func(t *testing.T, ts *testServer) {
		r := ts.Post("/responses", `{"input":"x","background":true}`)
		mustStatus(t, r, 200)
		env := r.JSON(t)
		if env["status"] != "in_progress" {
			t.Fatalf("background answer %s", r.Body)
		}
		<-agent.started
		path := "/responses/" + env["id"].(string) + "/cancel?sessionId=" + env["sessionId"].(string)
		c := ts.Post(path, "")
		mustStatus(t, c, 200)
		if got := c.JSON(t); got["status"] != "cancelled" || got["error"].(map[string]any)["code"] != "cancelled" {
			t.Fatalf("cancel answer %s", c.Body)
		}
		again := ts.Post(path, "")
		if string(again.Body) != string(c.Body) {
			t.Fatalf("second cancel %s, first %s", again.Body, c.Body)
		}
		mustStatus(t, ts.Post("/responses/resp_none/cancel?sessionId="+env["sessionId"].(string), ""), 404)
		mustStatus(t, ts.Post("/responses/x/cancel", ""), 400)
	})
}

func TestBackgroundStreamSurvivesDisconnect(t *testing.T) {
	agent := newBlockingAgent()
	eachStore(t, setup{Agent: agent}, func(t *testing.T, ts *testServer) {
		ctx, cancel := context.WithCancel(context.Background())
		req, _ := http.NewRequestWithContext(ctx, "POST", ts.URL+"/responses", strings.NewReader(`{"input":"x","stream":true,"background":true}`))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		rid, sid := resp.Header.Get("Harnest-Response-Id"), resp.Header.Get("Harnest-Session-Id")
		<-agent.started
		cancel()
		resp.Body.Close()
		time.Sleep(50 * time.Millisecond)
		if st := ts.Get("/responses/" + rid + "?sessionId=" + sid).JSON(t)["status"]; st != "in_progress" {
			t.Fatalf("a dropped background stream changed the receipt to %v", st)
		}
		// Resume after the first delta (sequence 1), then let it finish.
		done := make(chan []sseFrame)
		go func() { done <- ts.events(rid, sid, "1") }()
		time.Sleep(50 * time.Millisecond)
		agent.release <- struct{}{}
		frames := <-done
		if names := frameNames(frames); strings.Join(names, ",") != "response.text.delta,response.completed" {
			t.Fatalf("resumed frames %v", names)
		}
		if frames[0].ID != "2" || frames[0].Data["delta"] != "done" {
			t.Fatalf("first resumed frame %s", frames[0].Raw)
		}
		// Last-Event-ID works like after; a finished response replays at once.
		got := ts.eventsWithHeader(rid, sid, "2")
		if names := frameNames(got); strings.Join(names, ",") != "response.completed" {
			t.Fatalf("Last-Event-ID replay %v", names)
		}
		mustStatus(t, ts.Get("/responses/"+rid+"/events?sessionId="+sid+"&after=x"), 400)
		mustStatus(t, ts.Get("/responses/"+rid+"/events?sessionId=other"), 404)
	})
}

func TestTwoReplicasShareWaitsAndCancels(t *testing.T) {
	for _, store := range testutil.Stores(t) {
		t.Run(store.Name, func(t *testing.T) {
			shared := servertest.Shared(t, store.URL, setup{})
			blocking := newBlockingAgent()
			replica := func(agent runtime.Agent) *testServer {
				s := shared
				s.Agent = agent
				return newTestServer(t, store.URL, s)
			}
			a, b := replica(servertest.ApprovalAgent()), replica(servertest.ApprovalAgent())

			// An approval asked on A is answered through B.
			env := a.Post("/responses", `{"input":"x"}`).JSON(t)
			aid := requiredAction(t, env)["id"].(string)
			done := b.Post("/approvals/"+aid, `{"decision":"approve"}`)
			mustStatus(t, done, 200)
			if got := done.JSON(t); got["status"] != "completed" || got["outputText"] != "Drafted. Sent." {
				t.Fatalf("approval through B: %s", done.Body)
			}

			// A run on C is cancelled through B, and followed through B.
			c := replica(blocking)
			env = c.Post("/responses", `{"input":"x","background":true}`).JSON(t)
			<-blocking.started
			rid, sid := env["id"].(string), env["sessionId"].(string)
			follow := make(chan []sseFrame)
			go func() { follow <- b.events(rid, sid, "") }()
			cancelled := b.Post("/responses/"+rid+"/cancel?sessionId="+sid, "")
			mustStatus(t, cancelled, 200)
			if cancelled.JSON(t)["status"] != "cancelled" {
				t.Fatalf("cancel through B: %s", cancelled.Body)
			}
			frames := <-follow
			last := frames[len(frames)-1]
			if last.Event != "response.completed" || last.Data["status"] != "cancelled" {
				t.Fatalf("follower on B ended with %s", last.Raw)
			}
		})
	}
}

func TestLapsedLeaseFailsTheRun(t *testing.T) {
	url := testutil.RealRedis(t)
	if url == "" {
		t.Skip("needs redis-server")
	}
	prefix := testutil.Prefix(t)
	blocking := newBlockingAgent()
	fast := func(o *runtime.Options) { o.Lease = 600 * time.Millisecond; o.SweepInterval = 100 * time.Millisecond }
	dying := newTestServer(t, url, setup{Agent: blocking, Prefix: prefix, Tune: fast})
	env := dying.Post("/responses", `{"input":"x","background":true}`).JSON(t)
	<-blocking.started
	// The replica "dies": it stops renewing (its store connection closes).
	dying.Srv.Store.Close()

	other := newTestServer(t, url, setup{Prefix: prefix, Tune: fast})
	path := "/responses/" + env["id"].(string) + "?sessionId=" + env["sessionId"].(string)
	var receipt map[string]any
	for i := 0; i < 300; i++ {
		receipt = other.Get(path).JSON(t)
		if receipt["status"] == "failed" {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if receipt["status"] != "failed" || receipt["error"].(map[string]any)["code"] != "replica_lost" {
		t.Fatalf("receipt after the lease lapsed: %v", receipt)
	}
	mustStatus(t, other.Post("/responses", `{"input":"next","sessionId":"`+env["sessionId"].(string)+`"}`), 200)
	close(blocking.release)
}

func frameNames(frames []sseFrame) []string {
	var names []string
	for _, f := range frames {
		names = append(names, f.Event)
	}
	return names
}

// events reads GET /responses/{id}/events to its end.
func (ts *testServer) events(rid, sid, after string) []sseFrame {
	path := "/responses/" + rid + "/events?sessionId=" + sid
	if after != "" {
		path += "&after=" + after
	}
	return ts.readStream(path, nil)
}

func (ts *testServer) eventsWithHeader(rid, sid, lastEventID string) []sseFrame {
	return ts.readStream("/responses/"+rid+"/events?sessionId="+sid, map[string]string{"Last-Event-ID": lastEventID})
}

func (ts *testServer) readStream(path string, headers map[string]string) []sseFrame {
	ts.T.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+path, nil)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	if ts.Token != "" {
		req.Header.Set("Authorization", "Bearer "+ts.Token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		ts.T.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		ts.T.Fatalf("GET %s: status %d", path, resp.StatusCode)
	}
	frames := readFrames(ts.T, resp.Body)
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		ts.T.Fatalf("GET %s did not end", path)
	}
	return frames
}

// TestEventsResumeAfterTheLaterCursor: an EventSource that reconnects asks
// for its URL again, after=0 included, with Last-Event-ID: 2; it is sent
// the events after 2 only, never again the ones it has. With both, the
// later of the two wins either way, and a bad Last-Event-ID is the 400 of
// a bad after.
func TestEventsResumeAfterTheLaterCursor(t *testing.T) {
	agent := runtime.AgentFunc(func(ctx context.Context, turn *runtime.Turn, emit runtime.Emit) error {
		for i := 0; i < 8; i++ {
			if err := emit(runtime.Event{Type: runtime.EventTextDelta, Delta: "d"}); err != nil {
				return err
			}
		}
		return nil
	})
	eachStore(t, setup{Agent: agent}, func(t *testing.T, ts *testServer) {
		env := ts.Post("/responses", `{"input":"x","background":true}`).JSON(t)
		rid, sid := env["id"].(string), env["sessionId"].(string)
		path := "/responses/" + rid + "/events?sessionId=" + sid
		all := ts.readStream(path+"&after=-1", nil) // waits for the end
		if len(all) < 8 {
			t.Fatalf("the whole stream has %d frames", len(all))
		}
		firstIDs := func(frames []sseFrame) string {
			var ids []string
			for _, f := range frames[:min(3, len(frames))] {
				ids = append(ids, f.ID)
			}
			return strings.Join(ids, ",")
		}
		for _, tt := range []struct{ after, lastEventID, want string }{
			{"0", "2", "3,4,5"},
			{"5", "2", "6,7,8"},
			{"", "2", "3,4,5"},
			{"2", "", "3,4,5"},
		} {
			got := ts.readStream(path+"&after="+tt.after, map[string]string{"Last-Event-ID": tt.lastEventID})
			if ids := firstIDs(got); ids != tt.want {
				t.Errorf("after=%s, Last-Event-ID %q: frames %s…, want %s…", tt.after, tt.lastEventID, ids, tt.want)
			}
		}
		bad := ts.Do("GET", path+"&after=0", "", nil, "Last-Event-ID", "x")
		mustStatus(t, bad, 400)
		if !strings.Contains(string(bad.Body), "invalid_after") {
			t.Errorf("a bad Last-Event-ID: %s", bad.Body)
		}
	})
}
