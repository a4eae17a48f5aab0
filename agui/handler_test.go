package agui_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/runtime"
)

func TestInvalidInputIsRefusedBeforeAnythingIsStored(t *testing.T) {
	big := `{"threadId":"th-bad","messages":[{"id":"u1","role":"user","content":"` + strings.Repeat("x", 3000) + `"}]}`
	eachStore(t, setup{maxBody: 2048}, func(t *testing.T, ts *testServer) {
		msgs := `"messages":[{"id":"u1","role":"user","content":"hi"}]`
		for _, c := range []struct {
			body   string
			status int
			detail string
		}{
			{`{"threadId":"th-bad",` + msgs + `,"state":{"_private":1}}`, 400, "state contains a reserved key"},
			{`{"threadId":"th-bad",` + msgs + `,"state":{"app:x":1}}`, 400, "state contains a reserved key"},
			{`{"threadId":"th-bad",` + msgs + `,"state":[]}`, 400, "state must be a JSON object"},
			{`{"threadId":"  ",` + msgs + `}`, 400, "threadId must be a non-blank string"},
			{`{"threadId":7,` + msgs + `}`, 400, "threadId must be a non-blank string"},
			{`{"threadId":"th-bad","runId":"",` + msgs + `}`, 400, "runId must be a non-blank string"},
			{`{"threadId":"th-bad","messages":{}}`, 400, "messages must be an array"},
			{`{"threadId":"th-bad","messages":[{"id":"u1","role":"robot","content":"hi"}]}`, 400, "role must be one of"},
			{`{"threadId":"th-bad","messages":[{"id":"u1","role":"user","content":"   "}]}`, 400, "non-blank text"},
			{`{"threadId":"th-bad","messages":[{"id":"u1","role":"user","content":[{"type":"image","source":{"type":"url","value":"http://x"}}]}]}`, 400, "text content only"},
			{`{"threadId":"th-bad","messages":[{"id":"u1","role":"user","content":"hi"},{"id":"a1","role":"assistant","content":"yo"}]}`, 400, "A new run must end with a user message"},
			{`{"threadId":"th-bad",` + msgs + `,"context":[{"description":"d"}]}`, 400, "context[0].value must be a string"},
			{`{"threadId":"th-bad",` + msgs + `,"tools":[{"description":"d"}]}`, 400, "tools[0].name"},
			{`{"threadId":"th-bad",` + msgs + `,"tools":[{"name":"a"},{"name":"a"}]}`, 400, "two tools named"},
			{`{"threadId":"th-bad",` + msgs + `,"tools":[{"name":"a","parameters":"x"}]}`, 400, "parameters"},
			{`{"threadId":"th-bad",` + msgs + `,"resume":[{"status":"resolved"}]}`, 400, "interruptId"},
			{`{"threadId":"th-bad",` + msgs + `,"resume":[{"interruptId":"a","status":"done"}]}`, 400, "status"},
			{`{"threadId":"th-bad",` + msgs + `,"resume":[{"interruptId":"a","status":"resolved"},{"interruptId":"a","status":"cancelled"}]}`, 400, "twice"},
			{`{"threadId":"th-bad",` + msgs + `,"protocolVersion":1}`, 400, "protocolVersion"},
			{`{"threadId":"th-bad"`, 400, "Invalid UTF-8 JSON"},
			{`["th-bad"]`, 400, "Expected a JSON object"},
			{big, 413, "Request body exceeds 2KiB"},
		} {
			r := ts.run(c.body)
			mustStatus(t, r, c.status)
			if !strings.Contains(string(r.Body), c.detail) {
				t.Errorf("%.80s: %s, want %q", c.body, r.Body, c.detail)
			}
		}
		mustStatus(t, ts.get("/sessions/th-bad"), 404) // nothing was created
		r := ts.do("GET", "/agui", nil)
		mustStatus(t, r, 405)
		if r.Header.Get("Allow") != "POST" {
			t.Fatalf("Allow %q", r.Header.Get("Allow"))
		}
	})
}

func TestHandshakeCreatesTheThread(t *testing.T) {
	eachStore(t, setup{}, func(t *testing.T, ts *testServer) {
		r := ts.run(`{"threadId":"th-1","runId":"r1","messages":[]}`)
		mustRun(t, r)
		if got := typesString(r.Events); got != "RUN_STARTED,RUN_FINISHED" {
			t.Fatalf("handshake %s", got)
		}
		if r.Events[0]["threadId"] != "th-1" || r.Events[1]["runId"] != "r1" {
			t.Fatalf("ids %v", r.Events)
		}
		mustStatus(t, ts.get("/sessions/th-1"), 200)
		// Again on the existing thread, and without any thread: a new one.
		mustRun(t, ts.run(`{"threadId":"th-1","messages":[]}`))
		r = ts.run(`{}`)
		mustRun(t, r)
		thread, _ := r.Events[0]["threadId"].(string)
		if len(thread) != 32 || r.Header.Get("Harnest-Session-Id") != thread {
			t.Fatalf("new thread %q, header %q", thread, r.Header.Get("Harnest-Session-Id"))
		}
		mustStatus(t, ts.get("/sessions/"+thread), 200)
	})
}

func TestRunUsesTheSharedPipeline(t *testing.T) {
	eachStore(t, setup{}, func(t *testing.T, ts *testServer) {
		r := ts.run(`{"threadId":"th-1","runId":"r1","messages":[{"id":"old","role":"user","content":"ignored history"},{"id":"a0","role":"assistant","content":"old answer"},{"id":"u1","role":"user","content":[{"type":"text","text":"first"},{"type":"text","text":"second"}]}],"forwardedProps":{"userId":"mallory"}}`)
		last := mustRun(t, r)
		if last["type"] != "RUN_FINISHED" || text(r.Events) != "Echo: first\nsecond" {
			t.Fatalf("run %s", r.Body)
		}
		// The receipt is the neutral one, pollable like any response.
		rid := r.Header.Get("Harnest-Response-Id")
		receipt := ts.get("/responses/" + rid + "?sessionId=th-1")
		mustStatus(t, receipt, 200)
		var env struct {
			Status, OutputText string
			Metadata           map[string]map[string]any
		}
		_ = json.Unmarshal(receipt.Body, &env)
		if env.Status != "completed" || env.OutputText != "Echo: first\nsecond" || env.Metadata["agui"]["runId"] != "r1" {
			t.Fatalf("receipt %s", receipt.Body)
		}
		// Only the newest user turn entered the transcript.
		page := ts.get("/sessions/th-1/messages")
		if strings.Contains(string(page.Body), "ignored history") || !strings.Contains(string(page.Body), "first") {
			t.Fatalf("transcript %s", page.Body)
		}
	})
}

func TestStateIsMergedAndReservedKeysStayHidden(t *testing.T) {
	eachStore(t, setup{agent: stateAgent}, func(t *testing.T, ts *testServer) {
		mustRun(t, ts.run(`{"threadId":"th-s","messages":[]}`))
		patch := ts.do("PATCH", "/sessions/th-s", []byte(`{"stateDelta":{"_internal":"x","count":10}}`))
		mustStatus(t, patch, 200)
		r := ts.run(`{"threadId":"th-s","messages":[{"id":"u1","role":"user","content":"go"}],"state":{"theme":"dark","count":10}}`)
		mustRun(t, r)
		snap := find(r.Events, "STATE_SNAPSHOT")
		got, _ := json.Marshal(snap["snapshot"])
		if string(got) != `{"count":10,"theme":"dark"}` {
			t.Fatalf("snapshot %s", got)
		}
		for _, e := range r.Events {
			if strings.Contains(mustJSON(e), "_internal") || strings.Contains(mustJSON(e), "_secret") {
				t.Fatalf("a reserved key reached the client: %v", e)
			}
		}
		s := ts.get("/sessions/th-s")
		var sess struct{ State map[string]any }
		_ = json.Unmarshal(s.Body, &sess)
		if sess.State["theme"] != "dark" || sess.State["count"] != 12.0 || sess.State["_internal"] != "x" {
			t.Fatalf("session state %s", s.Body)
		}
	})
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestInterruptRules(t *testing.T) {
	eachStore(t, setup{echo: &config.EchoBackend{Approval: "send_email"}}, func(t *testing.T, ts *testServer) {
		const u1 = `{"id":"u1","role":"user","content":"send it"}`
		first := ts.run(`{"threadId":"th-i","protocolVersion":"1.0","messages":[` + u1 + `]}`)
		mustRun(t, first)
		id := interruptID(first)
		resume := func(messages, entries string) reply {
			return ts.run(`{"threadId":"th-i","protocolVersion":"1.0","messages":[` + messages + `],"resume":[` + entries + `]}`)
		}
		for _, c := range []struct {
			messages, entries string
			status            int
			detail            string
		}{
			{u1, `{"interruptId":"approval_other","status":"resolved","payload":{"approved":true}}`, 409, "Resolve every pending interaction before sending new input"},
			{u1, `{"interruptId":"` + id + `","status":"resolved","payload":{"approved":true}},{"interruptId":"x","status":"cancelled"}`, 409, "No matching pending AG-UI interaction"},
			{u1, `{"interruptId":"` + id + `","status":"resolved","payload":{"approved":"yes"}}`, 400, "approved"},
			{u1, `{"interruptId":"` + id + `","status":"resolved","payload":{"approved":true,"extra":1}}`, 400, "approved"},
			{u1, `{"interruptId":"` + id + `","status":"resolved"}`, 400, "approved"},
			{u1, `{"interruptId":"` + id + `","status":"cancelled","payload":{"approved":true}}`, 400, "cancelled means deny"},
			{u1 + `,{"id":"u2","role":"user","content":"something else"}`, `{"interruptId":"` + id + `","status":"resolved","payload":{"approved":true}}`, 409, "Resolve every pending interaction before sending new input"},
		} {
			r := resume(c.messages, c.entries)
			mustStatus(t, r, c.status)
			if !strings.Contains(string(r.Body), c.detail) {
				t.Errorf("resume %s: %s, want %q", c.entries, r.Body, c.detail)
			}
		}
		// A new user message while the approval waits: 409, and so is a
		// tool answer (an approval is resumed, not answered by a tool).
		mustStatus(t, ts.run(`{"threadId":"th-i","messages":[`+u1+`,{"id":"u2","role":"user","content":"hello?"}]}`), 409)
		mustStatus(t, ts.run(`{"threadId":"th-i","messages":[`+u1+`,{"id":"t1","role":"tool","toolCallId":"`+id+`","content":"ok"}]}`), 409)
		// Another user's thread of the same name has nothing pending.
		mustStatus(t, ts.run(`{"threadId":"unknown","messages":[`+u1+`],"resume":[{"interruptId":"`+id+`","status":"cancelled"}]}`), 409)

		done := resume(u1, `{"interruptId":"`+id+`","status":"resolved","payload":{"approved":true}}`)
		if last := mustRun(t, done); last["type"] != "RUN_FINISHED" || text(done.Events) != "Echo: send it" {
			t.Fatalf("after approval %s", done.Body)
		}
		// Nothing waits any more: a second resume conflicts, a new message runs.
		mustStatus(t, resume(u1, `{"interruptId":"approval_unknown","status":"cancelled"}`), 409)
		mustStatus(t, ts.run(`{"threadId":"th-i","messages":[`+u1+`,{"id":"t1","role":"tool","toolCallId":"x","content":"ok"}]}`), 409)
		mustRun(t, ts.run(`{"threadId":"th-i","messages":[`+u1+`,{"id":"u2","role":"user","content":"next"}]}`))
	})
}

func TestResumeWithoutMessageIDs(t *testing.T) {
	eachStore(t, setup{echo: &config.EchoBackend{Approval: "send_email"}}, func(t *testing.T, ts *testServer) {
		first := ts.run(`{"threadId":"th-n","messages":[{"role":"user","content":"send it"}]}`)
		mustRun(t, first)
		// The same text (the same turn) resumes; a different text is new input.
		body := `{"threadId":"th-n","messages":[{"role":"user","content":"%s"}],"resume":[{"interruptId":"` + interruptID(first) + `","status":"resolved","payload":{"approved":true}}]}`
		mustStatus(t, ts.run(strings.Replace(body, "%s", "other", 1)), 409)
		r := ts.run(strings.Replace(body, "%s", "send it", 1))
		mustRun(t, r)
		if text(r.Events) != "Echo: send it" {
			t.Fatalf("resumed %s", r.Body)
		}
	})
}

func TestExpiredApproval(t *testing.T) {
	tune := func(o *runtime.Options) { o.ApprovalTTL = 200 * time.Millisecond }
	eachStore(t, setup{echo: &config.EchoBackend{Approval: "send_email"}, tune: tune}, func(t *testing.T, ts *testServer) {
		first := ts.run(`{"threadId":"th-x","protocolVersion":"1.0","messages":[{"id":"u1","role":"user","content":"x"}]}`)
		mustRun(t, first)
		id := interruptID(first)
		rid := first.Header.Get("Harnest-Response-Id")
		waitStatus(t, ts, rid, "th-x", "denied")
		resume := func(entry string) reply {
			return ts.run(`{"threadId":"th-x","messages":[{"id":"u1","role":"user","content":"x"}],"resume":[{"interruptId":"` + id + `",` + entry + `}]}`)
		}
		late := resume(`"status":"resolved","payload":{"approved":true}`)
		if last := mustRun(t, late); last["type"] != "RUN_ERROR" || last["code"] != "interaction_closed" {
			t.Fatalf("late approval %s", late.Body)
		}
		dropped := resume(`"status":"cancelled"`)
		last := mustRun(t, dropped)
		if res, _ := last["result"].(map[string]any); last["type"] != "RUN_FINISHED" || res["status"] != "denied" {
			t.Fatalf("cancelling an expired approval %s", dropped.Body)
		}
	})
}

func TestFrontendToolAnsweredByToolMessage(t *testing.T) {
	eachStore(t, setup{echo: &config.EchoBackend{ClientTool: "get_location"}}, func(t *testing.T, ts *testServer) {
		tools := `"tools":[{"name":"get_location","description":"where","parameters":{"type":"object"}}]`
		u1 := `{"id":"u1","role":"user","content":"where"}`
		first := ts.run(`{"threadId":"th-f",` + tools + `,"messages":[` + u1 + `]}`)
		last := mustRun(t, first)
		if last["type"] != "RUN_FINISHED" || last["outcome"] != nil {
			t.Fatalf("a frontend tool is no interrupt: %s", first.Body)
		}
		call := toolCallID(first)
		c := find(first.Events, "CUSTOM")
		if c == nil || c["name"] != "harnest.client_tool" {
			t.Fatalf("client tool announcement %v", c)
		}
		// A tool answer for another call does not cover the pending one.
		mustStatus(t, ts.run(`{"threadId":"th-f",`+tools+`,"messages":[`+u1+`,{"id":"t0","role":"tool","toolCallId":"other","content":"x"}]}`), 409)
		r := ts.run(`{"threadId":"th-f",` + tools + `,"messages":[` + u1 + `,{"id":"a1","role":"assistant","toolCalls":[{"id":"` + call + `","type":"function","function":{"name":"get_location","arguments":"{}"}}]},{"id":"t1","role":"tool","toolCallId":"` + call + `","content":"{\"city\":\"Oslo\"}"}]}`)
		mustRun(t, r)
		if got := text(r.Events); got != `Echo: where (get_location said: {"city":"Oslo"})` {
			t.Fatalf("answer %q", got)
		}
		if rid := r.Header.Get("Harnest-Response-Id"); rid != first.Header.Get("Harnest-Response-Id") {
			t.Fatalf("the answer resumed %s, not %s", rid, first.Header.Get("Harnest-Response-Id"))
		}
	})
}

func TestThreadsBelongToTheirUser(t *testing.T) {
	eachStore(t, setup{tokens: true, echo: &config.EchoBackend{Approval: "send_email"}}, func(t *testing.T, ts *testServer) {
		alice, bob := ts.as(testTokens[0].Token), ts.as(testTokens[1].Token)
		u1 := `{"id":"u1","role":"user","content":"x"}`
		first := alice.run(`{"threadId":"shared","messages":[` + u1 + `]}`)
		mustRun(t, first)
		mustStatus(t, ts.run(`{"threadId":"shared","messages":[`+u1+`]}`), 401)
		// Bob's "shared" is his own thread: nothing waits there.
		mustStatus(t, bob.run(`{"threadId":"shared","messages":[`+u1+`],"resume":[{"interruptId":"`+interruptID(first)+`","status":"resolved","payload":{"approved":true}}]}`), 409)
		mustRun(t, bob.run(`{"threadId":"shared","messages":[]}`))
		mustStatus(t, bob.get("/responses/"+first.Header.Get("Harnest-Response-Id")+"?sessionId=shared"), 404)
	})
}

func TestClosingTheStreamCancelsTheRun(t *testing.T) {
	eachStore(t, setup{echo: &config.EchoBackend{DelayMs: 300}}, func(t *testing.T, ts *testServer) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, "POST", ts.URL+"/agui", strings.NewReader(`{"threadId":"th-c","messages":[{"id":"u1","role":"user","content":"a b c d e f"}]}`))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		rid := resp.Header.Get("Harnest-Response-Id")
		untilFirstText(resp.Body)
		cancel()
		resp.Body.Close()
		waitStatus(t, ts, rid, "th-c", "cancelled")
	})
}

func TestKeepAliveComments(t *testing.T) {
	eachStore(t, setup{echo: &config.EchoBackend{DelayMs: 150}, keepAlive: 40 * time.Millisecond}, func(t *testing.T, ts *testServer) {
		r := ts.run(`{"threadId":"th-k","messages":[{"id":"u1","role":"user","content":"a b"}]}`)
		mustRun(t, r)
		if !strings.Contains(string(r.Body), "\n\n: keep-alive\n\n") {
			t.Fatalf("no keep-alive comment in %q", r.Body)
		}
	})
}

func TestBusyThread(t *testing.T) {
	eachStore(t, setup{echo: &config.EchoBackend{DelayMs: 200}}, func(t *testing.T, ts *testServer) {
		mustRun(t, ts.run(`{"threadId":"th-b","messages":[]}`))
		busy := ts.post("/responses", `{"input":"a b c","sessionId":"th-b","background":true}`)
		mustStatus(t, busy, 200)
		r := ts.run(`{"threadId":"th-b","messages":[{"id":"u1","role":"user","content":"x"}]}`)
		mustStatus(t, r, 409)
	})
}

// attributedAgent streams text from two agents and a decision.
var attributedAgent = runtime.AgentFunc(func(ctx context.Context, turn *runtime.Turn, emit runtime.Emit) error {
	for _, e := range []runtime.Event{
		{Type: runtime.EventTextDelta, Delta: "A1 ", Agent: "alpha"},
		{Type: runtime.EventTextDelta, Delta: "A2 ", Agent: "alpha"},
		{Type: runtime.EventTextDelta, Delta: "", Agent: "beta"},
		{Type: runtime.EventTextDelta, Delta: "B1", Agent: "beta"},
		{Type: runtime.EventDecisionResult, Value: json.RawMessage(`{"route":"beta"}`)},
		{Type: runtime.EventTextDelta, Delta: "B2", Agent: "beta"},
	} {
		if err := emit(e); err != nil {
			return err
		}
	}
	return nil
})

func TestTextMessagesFollowTheSpeakingAgent(t *testing.T) {
	ts := newTestServer(t, "", setup{agent: attributedAgent})
	r := ts.run(`{"threadId":"th-a","messages":[{"id":"u1","role":"user","content":"x"}]}`)
	mustRun(t, r)
	want := "RUN_STARTED,TEXT_MESSAGE_START,TEXT_MESSAGE_CONTENT,TEXT_MESSAGE_CONTENT,TEXT_MESSAGE_END," +
		"TEXT_MESSAGE_START,TEXT_MESSAGE_CONTENT,TEXT_MESSAGE_END,CUSTOM,TEXT_MESSAGE_START,TEXT_MESSAGE_CONTENT,TEXT_MESSAGE_END,RUN_FINISHED"
	if got := typesString(r.Events); got != want {
		t.Fatalf("events\n%s\nwant\n%s", got, want)
	}
	ids := map[any]bool{}
	for _, e := range r.Events {
		if e["type"] == "TEXT_MESSAGE_START" {
			ids[e["messageId"]] = true
		}
	}
	if len(ids) != 3 {
		t.Fatalf("message ids %v", ids)
	}
}

func TestClosingAResumedStreamCancelsTheRun(t *testing.T) {
	eachStore(t, setup{echo: &config.EchoBackend{Approval: "send_email", DelayMs: 300}}, func(t *testing.T, ts *testServer) {
		u1 := `{"id":"u1","role":"user","content":"a b c d e f"}`
		first := ts.run(`{"threadId":"th-rc","messages":[` + u1 + `]}`)
		mustRun(t, first)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, "POST", ts.URL+"/agui", strings.NewReader(
			`{"threadId":"th-rc","messages":[`+u1+`],"resume":[{"interruptId":"`+interruptID(first)+`","status":"resolved","payload":{"approved":true}}]}`))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		untilFirstText(resp.Body)
		cancel()
		resp.Body.Close()
		waitStatus(t, ts, first.Header.Get("Harnest-Response-Id"), "th-rc", "cancelled")
	})
}

func TestAFailedResumeCanBeDropped(t *testing.T) {
	tune := func(o *runtime.Options) { o.Timeout = 200 * time.Millisecond }
	eachStore(t, setup{echo: &config.EchoBackend{Approval: "send_email", DelayMs: 2000}, tune: tune}, func(t *testing.T, ts *testServer) {
		u1 := `{"id":"u1","role":"user","content":"a b"}`
		first := ts.run(`{"threadId":"th-d","protocolVersion":"1.0","messages":[` + u1 + `]}`)
		mustRun(t, first)
		resume := func(entry string) reply {
			return ts.run(`{"threadId":"th-d","protocolVersion":"1.0","messages":[` + u1 + `],"resume":[{"interruptId":"` + interruptID(first) + `",` + entry + `}]}`)
		}
		timedOut := resume(`"status":"resolved","payload":{"approved":true}`)
		if last := mustRun(t, timedOut); last["type"] != "RUN_ERROR" || last["code"] != "timed_out" || last["message"] != "Response timed out" {
			t.Fatalf("resumed run %s", timedOut.Body)
		}
		again := resume(`"status":"resolved","payload":{"approved":true}`)
		if last := mustRun(t, again); last["type"] != "RUN_ERROR" || last["code"] != "interaction_closed" {
			t.Fatalf("resolving again %s", again.Body)
		}
		dropped := resume(`"status":"cancelled"`)
		last := mustRun(t, dropped)
		if res, _ := last["result"].(map[string]any); last["type"] != "RUN_FINISHED" || res["status"] != "failed" {
			t.Fatalf("dropping %s", dropped.Body)
		}
		mustRun(t, ts.run(`{"threadId":"th-d","messages":[`+u1+`,{"id":"u2","role":"user","content":"next"}]}`))
	})
}
