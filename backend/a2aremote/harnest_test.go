package a2aremote_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/server/servertest"
)

// harnestRemote is a harnest server of examples/hello (the echo agent)
// with its A2A card naming its own address: the remote of a front whose
// backend is a2a. card, when not nil, replaces the agent card.
func harnestRemote(t *testing.T, card map[string]any, echo func(*config.EchoBackend), output func(*config.Output)) *servertest.Server {
	t.Helper()
	return servertest.Start(t, "", servertest.Setup{PublicURL: true, Card: card, Config: func(c *config.Config) {
		if echo != nil {
			echo(c.Spec.Backend.Echo)
		}
		if output != nil {
			output(&c.Spec.Output)
		}
	}})
}

// jsonRPC03Card is the hello card with one interface: JSON-RPC of A2A 0.3.
func jsonRPC03Card() map[string]any {
	return map[string]any{
		"name": "Hello", "description": "Echoes.", "version": "0.1.0",
		"supportedInterfaces": []any{map[string]any{
			"url": "http://127.0.0.1:1907/a2a/v03", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"}},
		"capabilities":       map[string]any{"streaming": true},
		"defaultInputModes":  []any{"text/plain"},
		"defaultOutputModes": []any{"text/plain"},
		"skills": []any{map[string]any{"id": "echo", "name": "Echo", "description": "Echoes.",
			"tags": []any{"echo"}}},
	}
}

func TestHarnestRemote(t *testing.T) {
	for _, c := range []struct {
		name string
		card map[string]any
	}{
		{"v1.0-httpjson", nil}, // examples/hello's own card
		{"v0.3-jsonrpc", jsonRPC03Card()},
	} {
		t.Run(c.name, func(t *testing.T) {
			remote := harnestRemote(t, c.card, nil, nil)
			ts, _ := front(t, remote.URL, nil)

			frames := streamed(t, ts, "Hello there, remote agent", "")
			text, _, last := deltas(frames)
			if text != "Echo: Hello there, remote agent" {
				t.Fatalf("streamed %q", text)
			}
			n := 0
			for _, f := range frames {
				if f.Event == "response.text.delta" {
					n++
				}
			}
			if n < 2 {
				t.Errorf("%d text deltas: the answer did not stream in pieces", n)
			}
			session, _ := last["sessionId"].(string)
			ctx1, _ := remoteState(t, ts, session)
			mustAnswer(t, ask(t, ts, "Second", session), "Echo: Second")
			ctx2, _ := remoteState(t, ts, session)
			if ctx1 == "" || ctx1 != ctx2 {
				t.Fatalf("remote context %q then %q", ctx1, ctx2)
			}
			// The remote context is the remote's session: it holds both turns.
			r := remote.Get("/sessions/" + ctx1 + "/messages")
			var page struct {
				Messages []json.RawMessage `json:"messages"`
			}
			if err := json.Unmarshal(r.Body, &page); err != nil || len(page.Messages) != 4 {
				t.Fatalf("the remote session has %d messages, want 4: %s", len(page.Messages), r.Body)
			}
		})
	}
}

func TestHarnestRemoteInputRequired(t *testing.T) {
	remote := harnestRemote(t, nil, func(e *config.EchoBackend) { e.Approval = "send" }, nil)
	ts, _ := front(t, remote.URL, nil)
	first := ask(t, ts, "ship it", "")
	if first.Status != "completed" || !strings.Contains(first.OutputText, `"approve"`) {
		t.Fatalf("the remote's approval question is not the answer: %+v", first)
	}
	if _, task := remoteState(t, ts, first.SessionID); task == "" {
		t.Fatal("the input-required task is not kept")
	}
	mustAnswer(t, ask(t, ts, "approve", first.SessionID), "Echo: ship it")
}

var cancelledTask = regexp.MustCompile(`cancelled the remote task".*? taskId=(\S+)`)

func TestHarnestRemoteCancel(t *testing.T) {
	remote := harnestRemote(t, nil,
		func(e *config.EchoBackend) { e.Thinking, e.DelayMs = true, 20000 },
		func(o *config.Output) { o.Thinking = true })
	ts, logs := front(t, remote.URL, nil)
	cancel, seen, done := startStream(t, ts, "take your time", "response.agent_activity")
	closedWithin(t, seen, "the remote's thinking to reach the client")
	cancel()
	closedWithin(t, done, "the stream to end")

	var task string
	for i := 0; i < 200 && task == ""; i++ {
		if m := cancelledTask.FindStringSubmatch(logs.String()); m != nil {
			task = m[1]
		} else {
			time.Sleep(50 * time.Millisecond)
		}
	}
	if task == "" {
		t.Fatalf("the front did not cancel the remote task:\n%s", logs)
	}
	// The remote task is the remote's response: its receipt says cancelled.
	var sessions struct {
		Sessions []struct {
			ID string `json:"id"`
		} `json:"sessions"`
	}
	if err := json.Unmarshal(remote.Get("/sessions").Body, &sessions); err != nil || len(sessions.Sessions) != 1 {
		t.Fatalf("remote sessions: %v %+v", err, sessions)
	}
	var receipt struct {
		Status string `json:"status"`
	}
	for i := 0; i < 100 && receipt.Status != "cancelled"; i++ {
		r := remote.Get("/responses/" + task + "?sessionId=" + sessions.Sessions[0].ID)
		_ = json.Unmarshal(r.Body, &receipt)
		if receipt.Status != "cancelled" {
			time.Sleep(50 * time.Millisecond)
		}
	}
	if receipt.Status != "cancelled" {
		t.Fatalf("the remote receipt of %s is %q, want cancelled", task, receipt.Status)
	}
}
