package neutral_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/harnest/harnest/runtime"
)

func TestJSONResponseAndRecovery(t *testing.T) {
	eachStore(t, setup{}, func(t *testing.T, ts *testServer) {
		r := ts.Post("/responses", `{"input":"Hello! What can you help me with?","metadata":{"trace":"abc"}}`)
		mustStatus(t, r, 200)
		env := r.JSON(t)
		id, sid := env["id"].(string), env["sessionId"].(string)
		if !strings.HasPrefix(id, "resp_") || len(id) != 37 || len(sid) != 32 {
			t.Fatalf("ids %q %q", id, sid)
		}
		if env["status"] != "completed" || env["outputText"] != "Echo: Hello! What can you help me with?" {
			t.Fatalf("envelope %s", r.Body)
		}
		if fmt.Sprint(env["metadata"]) != "map[trace:abc]" {
			t.Fatalf("metadata not echoed: %v", env["metadata"])
		}
		out := env["output"].([]any)
		if len(out) != 1 || out[0].(map[string]any)["type"] != "message" {
			t.Fatalf("deltas were not folded into one message: %v", out)
		}
		if r.Header.Get("Harnest-Response-Id") != id {
			t.Fatal("missing Harnest-Response-Id header")
		}
		// Recovery returns exactly the same JSON.
		got := ts.Get("/responses/" + id + "?sessionId=" + sid)
		mustStatus(t, got, 200)
		if string(got.Body) != string(r.Body) {
			t.Fatalf("receipt differs:\n%s\n%s", got.Body, r.Body)
		}
		mustStatus(t, ts.Get("/responses/"+id), 400)
		mustStatus(t, ts.Get("/responses/"+id+"?sessionId=%20"), 400)
		mustStatus(t, ts.Get("/responses/"+id+"?sessionId=other"), 404)
		mustStatus(t, ts.Get("/responses/resp_nope?sessionId="+sid), 404)

		// A follow-up in the same session; the transcript has both turns.
		mustStatus(t, ts.Post("/responses", `{"input":"Tell me more.","sessionId":"`+sid+`"}`), 200)
		msgs := ts.Get("/sessions/" + sid + "/messages").JSON(t)
		list := msgs["messages"].([]any)
		if len(list) != 4 || msgs["nextCursor"] != nil || msgs["sessionId"] != sid || msgs["userId"] != "_harnest_neutral" {
			t.Fatalf("transcript %v", msgs)
		}
		roles := ""
		for _, m := range list {
			mm := m.(map[string]any)
			roles += mm["role"].(string) + ":" + mm["content"].(string) + "|"
		}
		if roles != "user:Hello! What can you help me with?|assistant:Echo: Hello! What can you help me with?|user:Tell me more.|assistant:Echo: Tell me more.|" {
			t.Fatalf("transcript order %s", roles)
		}
	})
}

func TestResponseRequestErrors(t *testing.T) {
	eachStore(t, setup{}, func(t *testing.T, ts *testServer) {
		for _, body := range []string{
			`{}`, `{"input":""}`, `{"input":"   "}`, `{"input":5}`, `{"input":null}`,
			`{"input":"hi","stream":"true"}`, `{"input":"hi","stream":1}`,
			`{"input":"hi","unknown":1}`, `{"input":"hi","sessionId":""}`, `{"input":"hi","sessionId":7}`,
			`{"input":"hi","metadata":[]}`, `{"input":"hi","metadata":"x"}`, `[]`, `not json`,
		} {
			r := ts.Post("/responses", body)
			mustStatus(t, r, 400)
		}
		mustStatus(t, ts.Do("POST", "/responses", "text/plain", []byte(`{"input":"hi"}`)), 415)
		mustStatus(t, ts.Post("/responses", `{"input":"`+strings.Repeat("x", 1<<20)+`"}`), 413)
		r := ts.Post("/responses", `{"input":"hi","sessionId":"missing"}`)
		mustStatus(t, r, 404)
		if r.JSON(t)["detail"] != "Session not found" {
			t.Fatalf("404 body %s", r.Body)
		}
		if n := len(ts.Get("/sessions").JSON(t)["sessions"].([]any)); n != 0 {
			t.Fatalf("rejected requests created %d sessions", n)
		}
	})
}

func TestSSEStream(t *testing.T) {
	cfg := func(c *configT) { c.Spec.Backend.Echo.ToolCall = true }
	eachStore(t, setup{Config: cfg}, func(t *testing.T, ts *testServer) {
		frames, resp := ts.stream(`{"input":"Hello!","stream":true}`)
		if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
			t.Fatalf("content type %q", ct)
		}
		if len(frames) < 4 {
			t.Fatalf("frames %v", frames)
		}
		var names []string
		for i, f := range frames {
			names = append(names, f.Event)
			if f.Data["type"] != f.Event || int(f.Data["sequence"].(float64)) != i || f.ID != fmt.Sprint(i) {
				t.Fatalf("frame %d: %s", i, f.Raw)
			}
			if f.Data["responseId"] == nil || f.Data["sessionId"] == nil {
				t.Fatalf("frame %d lacks ids: %s", i, f.Raw)
			}
		}
		want := "response.created,response.tool_call,response.tool_result,response.text.delta"
		if !strings.HasPrefix(strings.Join(names, ","), want) || names[len(names)-1] != "response.completed" {
			t.Fatalf("event order %v", names)
		}
		last := frames[len(frames)-1].Data
		if last["status"] != "completed" || last["outputText"] != "Echo: Hello!" || last["id"] != nil {
			t.Fatalf("completed frame %v", last)
		}
		text := ""
		for _, f := range frames {
			if f.Event == "response.text.delta" {
				text += f.Data["delta"].(string)
			}
		}
		if text != "Echo: Hello!" {
			t.Fatalf("deltas concatenate to %q", text)
		}
		// The stream's receipt equals the JSON a non-streaming call returns.
		rid, sid := last["responseId"].(string), last["sessionId"].(string)
		receipt := ts.Get("/responses/" + rid + "?sessionId=" + sid).JSON(t)
		if receipt["id"] != rid || receipt["status"] != "completed" || receipt["outputText"] != "Echo: Hello!" {
			t.Fatalf("receipt %v", receipt)
		}
		out := receipt["output"].([]any)
		if len(out) != 3 || out[0].(map[string]any)["type"] != "tool_call" || out[1].(map[string]any)["type"] != "tool_result" {
			t.Fatalf("output %v", out)
		}
	})
}

func TestAgentFailure(t *testing.T) {
	cfg := func(c *configT) { c.Spec.Backend.Echo.Fail = true }
	eachStore(t, setup{Config: cfg}, func(t *testing.T, ts *testServer) {
		r := ts.Post("/responses", `{"input":"boom"}`)
		mustStatus(t, r, 500)
		if strings.Contains(string(r.Body), "configured to fail") {
			t.Fatal("agent error text leaked to the client")
		}
		rid, sid := r.Header.Get("Harnest-Response-Id"), r.Header.Get("Harnest-Session-Id")
		receipt := ts.Get("/responses/" + rid + "?sessionId=" + sid).JSON(t)
		if receipt["status"] != "failed" || receipt["error"].(map[string]any)["code"] != "invocation_failed" || receipt["outputText"] != "" {
			t.Fatalf("receipt %v", receipt)
		}
		frames, _ := ts.stream(`{"input":"boom","stream":true}`)
		last := frames[len(frames)-1]
		if last.Event != "error" || last.Data["error"] != "Agent execution failed" {
			t.Fatalf("last frame %s", last.Raw)
		}
		for _, f := range frames {
			if f.Event == "response.completed" {
				t.Fatal("a failed stream sent response.completed")
			}
		}
		// A failed turn adds nothing to the transcript.
		msgs := ts.Get("/sessions/" + sid + "/messages").JSON(t)
		if len(msgs["messages"].([]any)) != 0 {
			t.Fatalf("failed turn in transcript: %v", msgs)
		}
	})
}

func TestTimeout(t *testing.T) {
	cfg := func(c *configT) {
		c.Spec.Backend.Echo.DelayMs = 2000
		c.Server.HTTP.RequestTimeoutSeconds = 0.2
	}
	eachStore(t, setup{Config: cfg}, func(t *testing.T, ts *testServer) {
		r := ts.Post("/responses", `{"input":"slow"}`)
		mustStatus(t, r, 504)
		if r.JSON(t)["detail"] != "Response timed out" {
			t.Fatalf("504 body %s", r.Body)
		}
		receipt := ts.Get("/responses/" + r.Header.Get("Harnest-Response-Id") + "?sessionId=" + r.Header.Get("Harnest-Session-Id")).JSON(t)
		if receipt["status"] != "failed" || receipt["error"].(map[string]any)["code"] != "timed_out" {
			t.Fatalf("receipt %v", receipt)
		}
	})
}

func TestEmptyOutputIs502(t *testing.T) {
	silent := runtime.AgentFunc(func(ctx context.Context, turn *runtime.Turn, emit runtime.Emit) error {
		return emit(runtime.Event{Type: runtime.EventAgentActivity, Activity: "started"})
	})
	eachStore(t, setup{Agent: silent}, func(t *testing.T, ts *testServer) {
		r := ts.Post("/responses", `{"input":"hi"}`)
		mustStatus(t, r, 502)
		if r.JSON(t)["detail"] != "Agent completed without customer-facing output" {
			t.Fatalf("502 body %s", r.Body)
		}
		receipt := ts.Get("/responses/" + r.Header.Get("Harnest-Response-Id") + "?sessionId=" + r.Header.Get("Harnest-Session-Id")).JSON(t)
		if receipt["status"] != "failed" {
			t.Fatalf("receipt %v", receipt)
		}
	})
}

// blockingAgent emits one delta, then waits until released or cancelled.
type blockingAgent struct {
	started chan string // response IDs, as each run starts
	release chan struct{}
}

func newBlockingAgent() *blockingAgent {
	return &blockingAgent{started: make(chan string, 16), release: make(chan struct{})}
}

func (a *blockingAgent) Run(ctx context.Context, turn *runtime.Turn, emit runtime.Emit) error {
	if err := emit(runtime.Event{Type: runtime.EventTextDelta, Delta: "partial "}); err != nil {
		return err
	}
	a.started <- turn.ResponseID
	select {
	case <-a.release:
		return emit(runtime.Event{Type: runtime.EventTextDelta, Delta: "done"})
	case <-ctx.Done():
		return ctx.Err()
	}
}

func TestClosingStreamCancels(t *testing.T) {
	agent := newBlockingAgent()
	eachStore(t, setup{Agent: agent}, func(t *testing.T, ts *testServer) {
		mustStatus(t, ts.Post("/sessions", `{"id":"c"}`), 201)
		ctx, cancel := context.WithCancel(context.Background())
		req, _ := http.NewRequestWithContext(ctx, "POST", ts.URL+"/responses", strings.NewReader(`{"input":"x","stream":true,"sessionId":"c"}`))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		rid := resp.Header.Get("Harnest-Response-Id")
		<-agent.started
		// While it runs, the receipt is in_progress and the session is busy.
		if st := ts.Get("/responses/" + rid + "?sessionId=c").JSON(t)["status"]; st != "in_progress" {
			t.Fatalf("status while running %v", st)
		}
		mustStatus(t, ts.Post("/responses", `{"input":"y","sessionId":"c"}`), 409)
		mustStatus(t, ts.Do("DELETE", "/sessions/c", "", nil), 409)
		cancel()
		resp.Body.Close()
		status := ""
		for i := 0; i < 200 && status != "cancelled"; i++ {
			time.Sleep(10 * time.Millisecond)
			status, _ = ts.Get("/responses/" + rid + "?sessionId=c").JSON(t)["status"].(string)
		}
		if status != "cancelled" {
			t.Fatalf("receipt after disconnect: %q", status)
		}
		// The session is free again.
		go func() { agent.release <- struct{}{} }()
		mustStatus(t, ts.Post("/responses", `{"input":"y","sessionId":"c"}`), 200)
	})
}

func TestTranscriptPagination(t *testing.T) {
	eachStore(t, setup{}, func(t *testing.T, ts *testServer) {
		mustStatus(t, ts.Post("/sessions", `{"id":"t"}`), 201)
		for i := 0; i < 3; i++ {
			mustStatus(t, ts.Post("/responses", fmt.Sprintf(`{"input":"m%d","sessionId":"t"}`, i)), 200)
		}
		var contents []string
		path := "/sessions/t/messages?limit=4"
		for pages := 0; pages < 5; pages++ {
			page := ts.Get(path).JSON(t)
			for _, m := range page["messages"].([]any) {
				contents = append(contents, m.(map[string]any)["content"].(string))
			}
			next, ok := page["nextCursor"].(string)
			if !ok {
				break
			}
			path = "/sessions/t/messages?limit=4&cursor=" + next
			// The cursor is bound to the session and the user.
			mustStatus(t, ts.Post("/sessions", `{"id":"other`+fmt.Sprint(pages)+`"}`), 201)
			mustStatus(t, ts.Get("/sessions/other"+fmt.Sprint(pages)+"/messages?cursor="+next), 400)
		}
		if strings.Join(contents, ",") != "m0,Echo: m0,m1,Echo: m1,m2,Echo: m2" {
			t.Fatalf("pages gave %v", contents)
		}
		mustStatus(t, ts.Get("/sessions/t/messages?cursor=bad"), 400)
		mustStatus(t, ts.Get("/sessions/t/messages?limit=101"), 400)
		mustStatus(t, ts.Get("/sessions/none/messages"), 404)
	})
}

func TestConcurrencyGateQueues(t *testing.T) {
	agent := newBlockingAgent()
	cfg := func(c *configT) { c.Server.HTTP.MaxConcurrentRequests = 1 }
	eachStore(t, setup{Config: cfg, Agent: agent}, func(t *testing.T, ts *testServer) {
		done := make(chan reply, 2)
		for i := 0; i < 2; i++ {
			go func() { done <- ts.Post("/responses", `{"input":"q"}`) }()
		}
		first := <-agent.started
		// Only one run is admitted; the other waits in the gate.
		select {
		case id := <-agent.started:
			t.Fatalf("second run %s admitted past a gate of 1", id)
		case <-time.After(200 * time.Millisecond):
		}
		agent.release <- struct{}{}
		<-agent.started
		agent.release <- struct{}{}
		for i := 0; i < 2; i++ {
			r := <-done
			mustStatus(t, r, 200)
		}
		_ = first
	})
}

func TestStateDeltaIsCommitted(t *testing.T) {
	agent := runtime.AgentFunc(func(ctx context.Context, turn *runtime.Turn, emit runtime.Emit) error {
		if err := emit(runtime.Event{Type: runtime.EventStateDelta, StateDelta: map[string]json.RawMessage{"seen": json.RawMessage(`true`)}}); err != nil {
			return err
		}
		return emit(runtime.Event{Type: runtime.EventTextDelta, Delta: "ok " + string(turn.State["before"])})
	})
	eachStore(t, setup{Agent: agent}, func(t *testing.T, ts *testServer) {
		mustStatus(t, ts.Post("/sessions", `{"id":"st","state":{"before":1}}`), 201)
		frames, _ := ts.stream(`{"input":"x","stream":true,"sessionId":"st"}`)
		if frames[1].Event != "response.state_delta" || fmt.Sprint(frames[1].Data["delta"]) != "map[seen:true]" {
			t.Fatalf("state delta frame %s", frames[1].Raw)
		}
		if frames[len(frames)-1].Data["outputText"] != "ok 1" {
			t.Fatalf("agent did not see the state: %s", frames[len(frames)-1].Raw)
		}
		state := ts.Get("/sessions/st").JSON(t)["state"].(map[string]any)
		if state["seen"] != true || state["before"] != float64(1) {
			t.Fatalf("state after turn %v", state)
		}
	})
}

func TestOutputPolicy(t *testing.T) {
	shown := func(c *configT) {
		c.Spec.Backend.Echo.Thinking, c.Spec.Backend.Echo.ToolCall = true, true
		c.Spec.Output.Thinking = true
	}
	eachStore(t, setup{Config: shown}, func(t *testing.T, ts *testServer) {
		env := ts.Post("/responses", `{"input":"hi"}`).JSON(t)
		types := ""
		for _, item := range env["output"].([]any) {
			types += item.(map[string]any)["type"].(string) + ","
		}
		if types != "thinking,tool_call,tool_result,message," || env["outputText"] != "Echo: hi" {
			t.Fatalf("output types %s, outputText %v", types, env["outputText"])
		}
	})
	hidden := func(c *configT) {
		c.Spec.Backend.Echo.Thinking, c.Spec.Backend.Echo.ToolCall = true, true
		off := false
		c.Spec.Output.ToolActivity = &off
	}
	eachStore(t, setup{Config: hidden}, func(t *testing.T, ts *testServer) {
		frames, _ := ts.stream(`{"input":"hi","stream":true}`)
		for i, f := range frames {
			if f.Event == "response.thinking.delta" || f.Event == "response.tool_call" || f.Event == "response.tool_result" {
				t.Fatalf("policy let %s through", f.Event)
			}
			if int(f.Data["sequence"].(float64)) != i {
				t.Fatalf("hidden events left a gap in the sequence: %s", f.Raw)
			}
		}
	})
}

func TestAgentUnavailableIsShown(t *testing.T) {
	away := runtime.AgentFunc(func(ctx context.Context, turn *runtime.Turn, emit runtime.Emit) error {
		return runtime.Errorf(runtime.ErrAgentUnavailable, "nobody_home", "Nobody is there to answer")
	})
	eachStore(t, setup{Agent: away}, func(t *testing.T, ts *testServer) {
		r := ts.Post("/responses", `{"input":"hi"}`)
		mustStatus(t, r, 503)
		if got := r.JSON(t); got["code"] != "nobody_home" || got["detail"] != "Nobody is there to answer" {
			t.Fatalf("503 body %s", r.Body)
		}
		receipt := ts.Get("/responses/" + r.Header.Get("Harnest-Response-Id") + "?sessionId=" + r.Header.Get("Harnest-Session-Id")).JSON(t)
		if receipt["status"] != "failed" || receipt["error"].(map[string]any)["code"] != "nobody_home" {
			t.Fatalf("receipt %v", receipt)
		}
	})
}
