package a2a_test

import (
	"strings"
	"testing"
	"time"

	"github.com/harnest/harnest/config"
)

func TestSendBlockingReturnsMessage(t *testing.T) {
	eachStore(t, setup{}, func(t *testing.T, h *harness) {
		r := h.rpc("1.0", "SendMessage", map[string]any{"message": msg10("hello")}).JSON(t)
		if r["error"] != nil {
			t.Fatalf("error: %v", r["error"])
		}
		if got := str(r, "result", "message", "parts", 0, "text"); got != "Echo: hello" {
			t.Fatalf("reply text %q, want Echo: hello; %v", got, r)
		}
		if str(r, "result", "message", "role") != "ROLE_AGENT" || str(r, "result", "message", "contextId") == "" {
			t.Fatalf("reply is not an agent message with a context: %v", r)
		}
		// No task is stored for a direct reply.
		l := h.rpc("1.0", "ListTasks", map[string]any{}).JSON(t)
		if n := len(dig(l, "result", "tasks").([]any)); n != 0 {
			t.Fatalf("ListTasks has %d tasks, want 0", n)
		}
		// 0.3: the same send answers a kind:"message".
		r3 := h.rpc("", "message/send", map[string]any{"message": map[string]any{
			"kind": "message", "messageId": "x", "role": "user", "parts": []any{map[string]any{"kind": "text", "text": "hi"}}}}).JSON(t)
		if str(r3, "result", "kind") != "message" || str(r3, "result", "parts", 0, "text") != "Echo: hi" || str(r3, "result", "role") != "agent" {
			t.Fatalf("0.3 reply %v", r3)
		}
	})
}

func TestStreamGetListCancel(t *testing.T) {
	eachStore(t, setup{echo: config.EchoBackend{Thinking: true}}, func(t *testing.T, h *harness) {
		_, ct, events := h.sse("POST", "/a2a", `{"jsonrpc":"2.0","id":7,"method":"SendStreamingMessage","params":{"message":{"messageId":"a","role":"ROLE_USER","parts":[{"text":"one two three four five"}]}}}`, "A2A-Version", "1.0")
		if ct != "text/event-stream" {
			t.Fatalf("content type %q: %v", ct, events)
		}
		if len(events) < 4 {
			t.Fatalf("only %d events: %v", len(events), events)
		}
		first := dig(events[0], "result", "task")
		if str(first, "status", "state") != stateSubmitted {
			t.Fatalf("first event is not the submitted task: %v", events[0])
		}
		taskID := str(first, "id")
		var text strings.Builder
		var states []string
		for _, e := range events {
			if dig(e, "id") != float64(7) {
				t.Fatalf("event id %v, want 7", dig(e, "id"))
			}
			if a := dig(e, "result", "artifactUpdate"); a != nil {
				text.WriteString(str(a, "artifact", "parts", 0, "text"))
			}
			if s := str(e, "result", "statusUpdate", "status", "state"); s != "" {
				states = append(states, s)
			}
		}
		if text.String() != "Echo: one two three four five" {
			t.Fatalf("artifact text %q", text.String())
		}
		if states[0] != stateWorking || states[len(states)-1] != stateCompleted {
			t.Fatalf("states %v", states)
		}
		thinking := false
		for _, e := range events {
			if str(e, "result", "statusUpdate", "metadata", "harnest", "type") == "thinking" {
				thinking = true
			}
		}
		if !thinking {
			t.Errorf("no thinking status update: %v", events)
		}

		g := h.rpc("1.0", "GetTask", map[string]any{"id": taskID, "historyLength": 1}).JSON(t)
		if str(g, "result", "status", "state") != stateCompleted ||
			str(g, "result", "artifacts", 0, "parts", 0, "text") != "Echo: one two three four five" {
			t.Fatalf("GetTask %v", g)
		}
		if n := len(dig(g, "result", "history").([]any)); n != 1 {
			t.Fatalf("history length %d, want 1", n)
		}
		// REST: the same task, and the 0.3 shapes.
		rg := h.do("GET", "/rest/tasks/"+taskID+"?historyLength=0", "").JSON(t)
		if str(rg, "status", "state") != stateCompleted || rg["history"] != nil {
			t.Fatalf("REST GetTask %v", rg)
		}
		r03 := h.rpc("", "tasks/get", map[string]any{"id": taskID}).JSON(t)
		if str(r03, "result", "kind") != "task" || str(r03, "result", "status", "state") != "completed" {
			t.Fatalf("0.3 tasks/get %v", r03)
		}

		l := h.rpc("1.0", "ListTasks", map[string]any{"status": "TASK_STATE_COMPLETED"}).JSON(t)
		if str(l, "result", "tasks", 0, "id") != taskID || dig(l, "result", "tasks", 0, "artifacts") != nil {
			t.Fatalf("ListTasks %v", l)
		}
		if dig(l, "result", "nextPageToken") != "" || dig(l, "result", "totalSize") != float64(1) {
			t.Fatalf("ListTasks paging %v", l)
		}

		c := h.rpc("1.0", "CancelTask", map[string]any{"id": taskID}).JSON(t)
		if dig(c, "error", "code") != float64(-32002) {
			t.Fatalf("cancel of a completed task: %v", c)
		}
		_, ct, sub := h.sse("POST", "/a2a", `{"jsonrpc":"2.0","id":"s","method":"SubscribeToTask","params":{"id":"`+taskID+`"}}`, "A2A-Version", "1.0")
		if ct != "text/event-stream" || len(sub) != 1 || dig(sub[0], "error", "code") != float64(-32004) {
			t.Fatalf("subscribe to a finished task: %s %v", ct, sub)
		}
		u := h.rpc("1.0", "GetTask", map[string]any{"id": "nope"}).JSON(t)
		if dig(u, "error", "code") != float64(-32001) || str(u, "error", "data", 0, "reason") != "TASK_NOT_FOUND" {
			t.Fatalf("unknown task %v", u)
		}
		// Another user sees nothing.
		o := h.rpc("1.0", "GetTask", map[string]any{"id": taskID}, "X-Test-User", "mallory").JSON(t)
		if dig(o, "error", "code") != float64(-32001) {
			t.Fatalf("other user %v", o)
		}
	})
}

func TestCancelRunningTask(t *testing.T) {
	eachStore(t, setup{echo: config.EchoBackend{DelayMs: 2000}}, func(t *testing.T, h *harness) {
		r := h.rpc("1.0", "SendMessage", map[string]any{"message": msg10("a b c d e f"),
			"configuration": map[string]any{"returnImmediately": true}}).JSON(t)
		id := str(r, "result", "task", "id")
		if id == "" || str(r, "result", "task", "status", "state") != stateSubmitted {
			t.Fatalf("returnImmediately %v", r)
		}
		c := h.rpc("1.0", "CancelTask", map[string]any{"id": id}).JSON(t)
		if str(c, "result", "status", "state") != stateCanceled {
			t.Fatalf("cancel %v", c)
		}
		g := h.rpc("1.0", "GetTask", map[string]any{"id": id}).JSON(t)
		if str(g, "result", "status", "state") != stateCanceled {
			t.Fatalf("get after cancel %v", g)
		}
	})
}

func TestApprovalRoundTrip(t *testing.T) {
	eachStore(t, setup{echo: config.EchoBackend{Approval: "send_email"}}, func(t *testing.T, h *harness) {
		// A blocking send that needs an approval answers with the task.
		r := h.rpc("1.0", "SendMessage", map[string]any{"message": msg10("mail bob")}).JSON(t)
		task := dig(r, "result", "task")
		if str(task, "status", "state") != stateInputRequired {
			t.Fatalf("send %v", r)
		}
		id, ctx := str(task, "id"), str(task, "contextId")
		if str(task, "status", "message", "parts", 1, "data", "type") != "human_approval" {
			t.Fatalf("input-required message %v", task)
		}
		// Wrong context, then an unparseable answer.
		bad := h.rpc("1.0", "SendMessage", map[string]any{"message": msg10("approve", "taskId", id, "contextId", "other")}).JSON(t)
		if dig(bad, "error", "code") != float64(-32602) {
			t.Fatalf("mismatched context %v", bad)
		}
		bad = h.rpc("1.0", "SendMessage", map[string]any{"message": msg10("maybe", "taskId", id)}).JSON(t)
		if dig(bad, "error", "code") != float64(-32602) {
			t.Fatalf("bad answer %v", bad)
		}
		sub := make(chan []map[string]any, 1)
		go func() {
			_, _, ev := h.sse("POST", "/rest/tasks/"+id+":subscribe", "", "A2A-Version", "1.0")
			sub <- ev
		}()
		time.Sleep(100 * time.Millisecond)
		ok := h.rpc("1.0", "SendMessage", map[string]any{"message": msg10("approve", "taskId", id, "contextId", ctx)}).JSON(t)
		if str(ok, "result", "task", "status", "state") != stateCompleted ||
			str(ok, "result", "task", "artifacts", 0, "parts", 0, "text") != "Echo: mail bob" {
			t.Fatalf("resume %v", ok)
		}
		select {
		case ev := <-sub:
			if str(ev[0], "task", "status", "state") != stateInputRequired || str(ev[len(ev)-1], "statusUpdate", "status", "state") != stateCompleted {
				t.Fatalf("subscription %v", ev)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("subscription did not end")
		}
		again := h.rpc("1.0", "SendMessage", map[string]any{"message": msg10("approve", "taskId", id)}).JSON(t)
		if dig(again, "error", "code") != float64(-32004) {
			t.Fatalf("message to a finished task %v", again)
		}
	})
}

func TestClientToolRoundTripStreaming(t *testing.T) {
	eachStore(t, setup{echo: config.EchoBackend{ClientTool: "get_time"}}, func(t *testing.T, h *harness) {
		_, _, ev := h.sse("POST", "/rest/message:stream", `{"message":{"messageId":"q","role":"ROLE_USER","parts":[{"text":"what time"}]}}`, "A2A-Version", "1.0")
		last := ev[len(ev)-1]
		if str(last, "statusUpdate", "status", "state") != stateInputRequired {
			t.Fatalf("stream %v", ev)
		}
		id := str(ev[0], "task", "id")
		_, _, ev = h.sse("POST", "/rest/message:stream", `{"message":{"messageId":"r","role":"ROLE_USER","taskId":"`+id+`","parts":[{"data":{"now":"noon"}}]}}`)
		if str(ev[0], "task", "status", "state") != stateWorking || str(ev[len(ev)-1], "statusUpdate", "status", "state") != stateCompleted {
			t.Fatalf("resumed stream %v", ev)
		}
		g := h.do("GET", "/rest/tasks/"+id, "").JSON(t)
		if got := str(g, "artifacts", 0, "parts", 0, "text"); got != `Echo: what time (get_time said: {"now":"noon"})` {
			t.Fatalf("answer %q", got)
		}
		if n := len(dig(g, "history").([]any)); n != 3 {
			t.Fatalf("history %d messages, want 3 (ask, input request, answer): %v", n, g)
		}
	})
}

func TestREST03Shapes(t *testing.T) {
	eachStore(t, setup{}, func(t *testing.T, h *harness) {
		r := h.do("POST", "/rest/v1/message:send", `{"message":{"messageId":"a","role":"ROLE_USER","content":[{"text":"hi"}]},"configuration":{"blocking":false}}`).JSON(t)
		id := str(r, "task", "id")
		if id == "" {
			t.Fatalf("0.3 REST send %v", r)
		}
		deadline := time.Now().Add(5 * time.Second)
		var g map[string]any
		for time.Now().Before(deadline) {
			g = h.do("GET", "/rest/v1/tasks/"+id, "").JSON(t)
			if str(g, "status", "state") == stateCompleted {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		if str(g, "status", "state") != stateCompleted || str(g, "history", 0, "content", 0, "text") != "hi" {
			t.Fatalf("0.3 REST task %v", g)
		}
		e := h.do("GET", "/rest/v1/tasks/nope", "")
		if e.Status != 404 || e.Header.Get("Content-Type") != "application/json" || dig(e.JSON(t), "code") != float64(-32001) {
			t.Fatalf("0.3 REST error %d %s", e.Status, e.Body)
		}
		e = h.do("GET", "/rest/tasks/nope", "")
		if e.Status != 404 || str(e.JSON(t), "error", "status") != "NOT_FOUND" {
			t.Fatalf("1.0 REST error %d %s", e.Status, e.Body)
		}
	})
}

func TestContextIsTheSession(t *testing.T) {
	eachStore(t, setup{}, func(t *testing.T, h *harness) {
		// A client-chosen contextId becomes a session with that ID.
		r := h.rpc("1.0", "SendMessage", map[string]any{"message": msg10("one", "contextId", "my-conversation")}).JSON(t)
		if str(r, "result", "message", "contextId") != "my-conversation" {
			t.Fatalf("client contextId: %v", r)
		}
		// Right after a stream ends, the same context takes the next
		// message: the session is free by the time the client hears.
		for i := 0; i < 20; i++ {
			_, _, ev := h.sse("POST", "/a2a", `{"jsonrpc":"2.0","id":1,"method":"SendStreamingMessage","params":{"message":{"messageId":"s","role":"ROLE_USER","contextId":"my-conversation","parts":[{"text":"two"}]}}}`, "A2A-Version", "1.0")
			if str(ev[len(ev)-1], "result", "statusUpdate", "status", "state") != stateCompleted {
				t.Fatalf("stream %d: %v", i, ev[len(ev)-1])
			}
			r = h.rpc("1.0", "SendMessage", map[string]any{"message": msg10("three", "contextId", "my-conversation")}).JSON(t)
			if str(r, "result", "message", "parts", 0, "text") != "Echo: three" {
				t.Fatalf("send %d right after a stream: %v", i, r)
			}
		}
		l := h.rpc("1.0", "ListTasks", map[string]any{"contextId": "my-conversation", "pageSize": 5}).JSON(t)
		if len(dig(l, "result", "tasks").([]any)) != 5 || dig(l, "result", "totalSize") != float64(20) || str(l, "result", "nextPageToken") == "" {
			t.Fatalf("list by context: %v", dig(l, "result", "totalSize"))
		}
	})
}

func TestRESTListCancelAndStreams03(t *testing.T) {
	eachStore(t, setup{echo: config.EchoBackend{DelayMs: 300}}, func(t *testing.T, h *harness) {
		r := h.do("POST", "/rest/message:send", `{"message":{"messageId":"a","role":"ROLE_USER","parts":[{"text":"x y z"}]},"configuration":{"returnImmediately":true}}`).JSON(t)
		id := str(r, "task", "id")
		l := h.do("GET", "/rest/tasks?status=TASK_STATE_SUBMITTED&pageSize=10&includeArtifacts=true", "").JSON(t)
		if str(l, "tasks", 0, "id") != id || l["nextPageToken"] != "" {
			t.Fatalf("REST list %v", l)
		}
		if r := h.do("GET", "/rest/tasks?pageSize=abc", ""); r.Status != 400 {
			t.Fatalf("bad pageSize: %d", r.Status)
		}
		c := h.do("POST", "/rest/tasks/"+id+":cancel", "null").JSON(t)
		if str(c, "status", "state") != stateCanceled {
			t.Fatalf("REST cancel %v", c)
		}
		l03 := h.do("GET", "/rest/v1/tasks?status=canceled", "").JSON(t)
		if str(l03, "tasks", 0, "status", "state") != "TASK_STATE_CANCELLED" {
			t.Fatalf("0.3 REST list %v", l03)
		}
		// 0.3 REST stream: ProtoJSON, final on the last status.
		_, _, ev := h.sse("POST", "/rest/v1/message:stream", `{"message":{"messageId":"b","role":"ROLE_USER","content":[{"text":"p q"}]}}`)
		if dig(ev[0], "task") == nil || dig(ev[len(ev)-1], "statusUpdate", "final") != true || str(ev[len(ev)-1], "statusUpdate", "status", "state") != stateCompleted {
			t.Fatalf("0.3 REST stream %v", ev)
		}
		// JSON-RPC: a streaming call that fails before its first event
		// answers a one-event stream, in both versions.
		code, ct, ev := h.sse("POST", "/a2a", `{"jsonrpc":"2.0","id":"r","method":"tasks/resubscribe","params":{"id":"nope"}}`)
		if code != 200 || ct != "text/event-stream" || len(ev) != 1 || dig(ev[0], "error", "code") != float64(-32001) {
			t.Fatalf("0.3 stream error: %d %s %v", code, ct, ev)
		}
		code, ct, ev = h.sse("POST", "/a2a", `{"jsonrpc":"2.0","id":"r","method":"SubscribeToTask","params":{"id":"nope"}}`, "A2A-Version", "1.0")
		if code != 200 || ct != "text/event-stream" || len(ev) != 1 || dig(ev[0], "error", "code") != float64(-32001) {
			t.Fatalf("1.0 stream error: %d %s %v", code, ct, ev)
		}
		if e := h.srv.Endpoints(); e["a2aJsonrpc"] != "/a2a" || e["a2aRest"] != "/rest" {
			t.Fatalf("endpoints %v", e)
		}
		if h.srv.Card()["name"] != "Echo" || len(h.srv.Warnings()) != 0 {
			t.Fatal("served card")
		}
	})
}
