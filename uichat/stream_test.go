package uichat_test

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/server/servertest"
)

// A turn is the UI message stream the AI SDK parses: start (the harnest
// response ID as messageId), one step with a text part, finish with the
// response's status, then [DONE]; the chat's ID is the session, and the
// second message continues it.
func TestChatStreamsATurn(t *testing.T) {
	servertest.EachStore(t, setup(), func(t *testing.T, ts *servertest.Server) {
		chunks := open(t, ts, "POST", "/api/chat", userMessage("chat-1", "hello")).rest(t)
		want := []string{"start", "start-step", "text-start", "text-delta", "text-delta", "text-end", "finish-step", "finish"}
		if got := types(chunks); !reflect.DeepEqual(got, want) {
			t.Fatalf("chunks = %v, want %v", got, want)
		}
		if text(chunks) != "Echo: hello" {
			t.Fatalf("text = %q", text(chunks))
		}
		start, finish := chunks[0], chunks[len(chunks)-1]
		id, _ := start["messageId"].(string)
		meta, _ := finish["messageMetadata"].(map[string]any)
		if !strings.HasPrefix(id, "resp_") || finish["finishReason"] != "stop" || meta["responseId"] != id || meta["sessionId"] != "chat-1" || meta["status"] != "completed" {
			t.Fatalf("start %v, finish %v", start, finish)
		}
		if chunks[2]["id"] != chunks[3]["id"] || chunks[2]["id"] != chunks[5]["id"] {
			t.Fatalf("text part IDs differ: %v", chunks[2:6])
		}

		// The second message goes on in the same session.
		open(t, ts, "POST", "/api/chat", userMessage("chat-1", "again")).rest(t)
		status, session := call(t, ts, "alice-token", "GET", "/sessions/chat-1/messages", "")
		msgs, _ := session["messages"].([]any)
		if status != http.StatusOK || len(msgs) != 4 {
			t.Fatalf("transcript %d: %v", status, session)
		}
	})
}

// With the output policy showing thinking, it streams as a reasoning part
// before the text.
func TestChatStreamsReasoning(t *testing.T) {
	ts := servertest.Start(t, "", setup(func(c *config.Config) { c.Spec.Output.Thinking = true }))
	chunks := open(t, ts, "POST", "/api/chat", userMessage("chat-r", "think")).rest(t)
	want := []string{"start", "start-step", "reasoning-start", "reasoning-delta", "reasoning-end", "text-start", "text-delta", "text-delta", "text-end", "finish-step", "finish"}
	if got := types(chunks); !reflect.DeepEqual(got, want) {
		t.Fatalf("chunks = %v, want %v", got, want)
	}
	if chunks[3]["delta"] != "Let me see." {
		t.Fatalf("reasoning %v", chunks[3])
	}
}

// A reload mid-answer: the POST's connection drops, the turn goes on, and
// GET /api/chat/{id}/stream replays it from its start, then live, to the
// end. Without a running turn (or chat) the GET answers 204.
func TestResumeReplaysTheActiveResponse(t *testing.T) {
	servertest.EachStoreReplicas(t, 2, setup(), func(t *testing.T, replicas []*servertest.Server) {
		a, b := replicas[0], replicas[1]
		if status, _ := call(t, b, "alice-token", "GET", "/api/chat/nochat/stream", ""); status != http.StatusNoContent {
			t.Fatalf("GET stream of an unknown chat: %d", status)
		}
		post := open(t, a, "POST", "/api/chat", userMessage("chat-2", "slow one two three four"))
		var first []map[string]any
		for len(first) < 4 { // start, start-step, text-start, the first delta
			c := post.next(t)
			if c == nil {
				t.Fatal("the stream ended early")
			}
			first = append(first, c)
		}
		post.resp.Body.Close() // the reload

		resumed := open(t, b, "GET", "/api/chat/chat-2/stream", "").rest(t)
		if resumed[0]["messageId"] != first[0]["messageId"] {
			t.Fatalf("resumed message %v, first %v", resumed[0], first[0])
		}
		if got := text(resumed); got != "Echo: slow one two three four" {
			t.Fatalf("resumed text %q (%v)", got, types(resumed))
		}
		if last := resumed[len(resumed)-1]; last["type"] != "finish" || last["finishReason"] != "stop" {
			t.Fatalf("resumed ends with %v", last)
		}
		if status, _ := call(t, a, "alice-token", "GET", "/api/chat/chat-2/stream", ""); status != http.StatusNoContent {
			t.Fatalf("GET stream after the turn: %d", status)
		}
		// Another user's chat is not theirs to resume.
		if status, _ := call(t, b, "bob-token", "GET", "/api/chat/chat-2/stream", ""); status != http.StatusNoContent {
			t.Fatalf("bob resumes alice's chat: %d", status)
		}
	})
}

// POST /api/chat/{id}/stop cancels the running turn on whichever replica
// runs it, also after a resume: the resumed stream ends with abort and
// finish; a second stop finds nothing running.
func TestStopCancelsOnAnyReplica(t *testing.T) {
	servertest.EachStoreReplicas(t, 2, setup(), func(t *testing.T, replicas []*servertest.Server) {
		a, b := replicas[0], replicas[1]
		post := open(t, a, "POST", "/api/chat", userMessage("chat-3", "slow a b c d e f g h i j k l"))
		post.next(t)
		post.resp.Body.Close()
		resumed := open(t, b, "GET", "/api/chat/chat-3/stream", "")
		for c := resumed.next(t); c != nil && c["type"] != "text-delta"; c = resumed.next(t) {
		}
		if status, body := call(t, b, "bob-token", "POST", "/api/chat/chat-3/stop", ""); status != http.StatusNotFound {
			t.Fatalf("bob stops alice's chat: %d %v", status, body)
		}
		status, body := call(t, b, "alice-token", "POST", "/api/chat/chat-3/stop", "")
		if status != http.StatusOK || body["stopped"] != true || body["status"] != "cancelled" || !strings.HasPrefix(body["responseId"].(string), "resp_") {
			t.Fatalf("stop: %d %v", status, body)
		}
		rest := resumed.rest(t)
		if got := types(rest); len(got) < 3 || got[len(got)-3] != "abort" || got[len(got)-1] != "finish" {
			t.Fatalf("the resumed stream ends with %v", got)
		}
		if meta := rest[len(rest)-1]["messageMetadata"].(map[string]any); meta["status"] != "cancelled" {
			t.Fatalf("finish metadata %v", meta)
		}
		status, body = call(t, a, "alice-token", "POST", "/api/chat/chat-3/stop", "")
		if status != http.StatusOK || body["stopped"] != false || body["responseId"] != nil {
			t.Fatalf("second stop: %d %v", status, body)
		}
	})
}

// A client tool is a static tool part awaiting output (toolCallId = the
// client tool request); the next POST carries its output in the newest
// assistant message, on the other replica, and the turn goes on there.
func TestClientToolRoundTrip(t *testing.T) {
	servertest.EachStoreReplicas(t, 2, setup(), func(t *testing.T, replicas []*servertest.Server) {
		a, b := replicas[0], replicas[1]
		body, _ := json.Marshal(map[string]any{"id": "chat-4", "tools": []any{map[string]any{"name": "getLocation", "parameters": map[string]any{"type": "object"}}},
			"messages": []any{map[string]any{"id": "u1", "role": "user", "parts": []any{map[string]any{"type": "text", "text": "tool please"}}}}})
		first := open(t, a, "POST", "/api/chat", string(body)).rest(t)
		input := find(t, first, "tool-input-available")
		callID, _ := input["toolCallId"].(string)
		if !strings.HasPrefix(callID, "client_tool_") || input["toolName"] != "getLocation" || input["dynamic"] != nil || input["providerExecuted"] != nil {
			t.Fatalf("tool input %v", input)
		}
		if fin := first[len(first)-1]; fin["finishReason"] != "tool-calls" {
			t.Fatalf("finish %v", fin)
		}
		answer, _ := json.Marshal(map[string]any{"id": "chat-4", "messages": []any{
			map[string]any{"id": "u1", "role": "user", "parts": []any{map[string]any{"type": "text", "text": "tool please"}}},
			map[string]any{"id": first[0]["messageId"], "role": "assistant", "parts": []any{
				map[string]any{"type": "step-start"},
				map[string]any{"type": "tool-getLocation", "toolCallId": callID, "state": "output-available", "input": map[string]any{"precise": true}, "output": map[string]any{"city": "Paris"}},
			}}}})
		rest := open(t, b, "POST", "/api/chat", string(answer)).rest(t)
		if got := text(rest); !strings.Contains(got, `getLocation said: {"city":"Paris"}`) || rest[0]["messageId"] != first[0]["messageId"] {
			t.Fatalf("continuation %q, %v", got, rest[0])
		}
		if fin := rest[len(rest)-1]; fin["finishReason"] != "stop" {
			t.Fatalf("finish %v", fin)
		}
		for _, c := range rest {
			if c["type"] == "tool-input-start" {
				t.Fatalf("the continuation announces the answered tool again: %v", types(rest))
			}
		}
	})
}

// approvalBody is a chat body whose assistant message responds to the
// approval.
func approvalBody(chatID, messageID, callID, approvalID string, approved bool) string {
	b, _ := json.Marshal(map[string]any{"id": chatID, "messages": []any{
		map[string]any{"id": messageID, "role": "assistant", "parts": []any{
			map[string]any{"type": "dynamic-tool", "toolName": "send_email", "toolCallId": callID, "state": "approval-responded",
				"input": map[string]any{"to": "bob"}, "approval": map[string]any{"id": approvalID, "approved": approved}},
		}}}})
	return string(b)
}

// An approval is a tool part with tool-approval-request; a POST whose
// assistant message responds to it resumes the turn (approved: the tool
// runs; denied: the part ends as denied).
func TestApprovalRoundTrip(t *testing.T) {
	servertest.EachStore(t, setup(), func(t *testing.T, ts *servertest.Server) {
		for _, approved := range []bool{true, false} {
			chat := "chat-approve-" + map[bool]string{true: "yes", false: "no"}[approved]
			first := open(t, ts, "POST", "/api/chat", userMessage(chat, "approve this")).rest(t)
			req := find(t, first, "tool-approval-request")
			input := find(t, first, "tool-input-available")
			approvalID, _ := req["approvalId"].(string)
			callID, _ := req["toolCallId"].(string)
			if !strings.HasPrefix(approvalID, "approval_") || callID != input["toolCallId"] || input["toolName"] != "send_email" || req["reason"] != "Send the email?" {
				t.Fatalf("approval %v, input %v", req, input)
			}
			rest := open(t, ts, "POST", "/api/chat", approvalBody(chat, first[0]["messageId"].(string), callID, approvalID, approved)).rest(t)
			fin := rest[len(rest)-1]
			if approved {
				out := find(t, rest, "tool-output-available")
				if out["toolCallId"] != "call_1" || !strings.HasPrefix(text(rest), "Echo: approve") || fin["finishReason"] != "stop" {
					t.Fatalf("approved: %v %q %v", out, text(rest), fin)
				}
				continue
			}
			denied := find(t, rest, "tool-output-denied")
			if denied["toolCallId"] != callID || fin["messageMetadata"].(map[string]any)["status"] != "denied" {
				t.Fatalf("denied: %v %v", types(rest), fin)
			}
		}
	})
}

// A chat whose response waits for an approval resumes (after a reload)
// with the pending request, so the page can show it again.
func TestResumeShowsThePendingApproval(t *testing.T) {
	ts := servertest.Start(t, "", setup())
	first := open(t, ts, "POST", "/api/chat", userMessage("chat-6", "approve this")).rest(t)
	resumed := open(t, ts, "GET", "/api/chat/chat-6/stream", "").rest(t)
	if !reflect.DeepEqual(types(resumed), types(first)) {
		t.Fatalf("resumed %v, first %v", types(resumed), types(first))
	}
	req := find(t, resumed, "tool-approval-request")
	// Answered, the replay shows it responded and goes on to the end.
	open(t, ts, "POST", "/api/chat", approvalBody("chat-6", first[0]["messageId"].(string), req["toolCallId"].(string), req["approvalId"].(string), true)).rest(t)
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if status, _ := call(t, ts, "alice-token", "GET", "/api/chat/chat-6/stream", ""); status == http.StatusNoContent {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("the chat still has an active response")
}

// Activity and artifacts are data parts: data-activity, and one
// data-artifact per artifact (its ID), replaced as chunks add to it.
func TestDataParts(t *testing.T) {
	ts := servertest.Start(t, "", setup())
	chunks := open(t, ts, "POST", "/api/chat", userMessage("chat-d", "artifact")).rest(t)
	act := find(t, chunks, "data-activity")
	if d := act["data"].(map[string]any); d["activity"] != "searching" || d["target"] != "the web" {
		t.Fatalf("activity %v", act)
	}
	var artifacts []map[string]any
	for _, c := range chunks {
		if c["type"] == "data-artifact" {
			artifacts = append(artifacts, c)
		}
	}
	if len(artifacts) != 2 || artifacts[0]["id"] != "a1" || artifacts[1]["id"] != "a1" {
		t.Fatalf("artifacts %v", artifacts)
	}
	last := artifacts[1]["data"].(map[string]any)
	if parts := last["parts"].([]any); len(parts) != 2 || last["lastChunk"] != true || last["name"] != "notes" {
		t.Fatalf("the artifact after its last chunk: %v", last)
	}
}

// A client that sends only the newest message ("message", as
// prepareSendMessagesRequest can) and a regenerate both start a turn.
func TestOnlyTheNewestMessage(t *testing.T) {
	ts := servertest.Start(t, "", setup())
	body := `{"id":"chat-m","message":{"id":"u1","role":"user","parts":[{"type":"text","text":"just this"}]}}`
	if got := text(open(t, ts, "POST", "/api/chat", body).rest(t)); got != "Echo: just this" {
		t.Fatalf("text %q", got)
	}
	body = `{"id":"chat-m","trigger":"regenerate-message","messages":[{"id":"u1","role":"user","parts":[{"type":"text","text":"just this"}]}]}`
	if got := text(open(t, ts, "POST", "/api/chat", body).rest(t)); got != "Echo: just this" {
		t.Fatalf("regenerated %q", got)
	}
}

// A resume after a client tool was answered replays the tool as done (no
// tool part awaiting output that the page would run again), then the rest.
func TestResumeAfterAnAnsweredClientTool(t *testing.T) {
	servertest.EachStoreReplicas(t, 2, setup(), func(t *testing.T, replicas []*servertest.Server) {
		a, b := replicas[0], replicas[1]
		first := open(t, a, "POST", "/api/chat", userMessage("chat-7", "slow tool x y z w v")).rest(t)
		callID := find(t, first, "tool-input-available")["toolCallId"].(string)
		answer, _ := json.Marshal(map[string]any{"id": "chat-7", "messages": []any{
			map[string]any{"id": first[0]["messageId"], "role": "assistant", "parts": []any{
				map[string]any{"type": "tool-getLocation", "toolCallId": callID, "state": "output-available", "output": "Lyon"},
			}}}})
		cont := open(t, a, "POST", "/api/chat", string(answer))
		cont.next(t)
		cont.resp.Body.Close()
		resumed := open(t, b, "GET", "/api/chat/chat-7/stream", "").rest(t)
		for _, c := range resumed {
			if c["type"] == "tool-input-available" && c["providerExecuted"] != true {
				t.Fatalf("the answered client tool is replayed as awaiting output: %v", c)
			}
		}
		out := find(t, resumed, "tool-output-available")
		if out["toolCallId"] != callID || !strings.Contains(text(resumed), "getLocation said: \"Lyon\"") {
			t.Fatalf("resumed %v %q", out, text(resumed))
		}
		if fin := resumed[len(resumed)-1]; fin["finishReason"] != "stop" {
			t.Fatalf("finish %v", fin)
		}
	})
}
