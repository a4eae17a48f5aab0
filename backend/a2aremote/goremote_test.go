package a2aremote_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/harnest/harnest/backend/a2aremote"
	"github.com/harnest/harnest/config"
)

// The bindings every a2a-go conversation test runs on: 1.0 and 0.3 (the
// a2a-go v2 compat server), JSON-RPC and HTTP+JSON, streaming or not.
var goPeerCases = []struct {
	name  string
	setup peerSetup
}{
	{"v1.0-jsonrpc", peerSetup{}},
	{"v1.0-httpjson", peerSetup{Binding: a2a.TransportProtocolHTTPJSON}},
	{"v1.0-jsonrpc-nostream", peerSetup{NoStream: true}},
	{"v0.3-jsonrpc", peerSetup{Version: "0.3"}},
	{"v0.3-httpjson", peerSetup{Version: "0.3", Binding: a2a.TransportProtocolHTTPJSON}},
}

func TestGoPeerConversation(t *testing.T) {
	for _, c := range goPeerCases {
		t.Run(c.name, func(t *testing.T) {
			peer := startGoPeer(t, c.setup)
			ts, _ := front(t, peer.URL, nil)

			// Streaming text (and the working status as activity).
			frames := streamed(t, ts, "hello", "")
			text, activities, last := deltas(frames)
			if text != "turn 1: hello" {
				t.Fatalf("streamed text %q, want %q", text, "turn 1: hello")
			}
			if !c.setup.NoStream && (len(activities) == 0 || activities[0] != "working on it") {
				t.Errorf("activities %q, want the working status message", activities)
			}
			if last["type"] != "response.completed" {
				t.Fatalf("last frame %v", last)
			}
			session, _ := last["sessionId"].(string)

			// The remote context is kept across turns of the session.
			ctx1, _ := remoteState(t, ts, session)
			mustAnswer(t, ask(t, ts, "again", session), "turn 2: again")
			ctx2, task := remoteState(t, ts, session)
			if ctx1 == "" || ctx1 != ctx2 || task != "" {
				t.Fatalf("remote state: context %q then %q, task %q", ctx1, ctx2, task)
			}

			// input-required: the question is the answer, the next turn
			// continues the remote task.
			mustAnswer(t, ask(t, ts, "ask", session), "What is your name?")
			_, waiting := remoteState(t, ts, session)
			if waiting == "" {
				t.Fatal("the input-required task is not kept in the session state")
			}
			mustAnswer(t, ask(t, ts, "Ada", session), "Hello, Ada!")
			if _, task := remoteState(t, ts, session); task != "" {
				t.Fatalf("the answered task %q is still kept", task)
			}
			// A new session is a new remote context.
			mustAnswer(t, ask(t, ts, "fresh", ""), "turn 1: fresh")
		})
	}
}

func TestGoPeerFailures(t *testing.T) {
	for _, c := range []struct{ input, code string }{
		{"auth", "remote_auth_required"},
		{"fail", "remote_failed"},
		{"reject", "remote_rejected"},
	} {
		t.Run(c.input, func(t *testing.T) {
			peer := startGoPeer(t, peerSetup{})
			ts, logs := front(t, peer.URL, nil)
			mustFail(t, ask(t, ts, c.input, ""), c.code)
			if c.input == "fail" && !strings.Contains(logs.String(), "internal boom") {
				t.Errorf("the log does not say what the remote said:\n%s", logs)
			}
			if c.input == "auth" {
				// Nobody here can sign in: the waiting task is cancelled.
				within(t, peer.cancelled, "CancelTask of the auth-required task")
			}
		})
	}
}

func TestGoPeerData(t *testing.T) {
	peer := startGoPeer(t, peerSetup{})
	ts, _ := front(t, peer.URL, nil)
	r := ask(t, ts, "data", "")
	mustAnswer(t, r, `{"answer":42}`)
	found := false
	for _, o := range r.Output {
		if o.Type == "decision_result" && string(o.Value) == `{"answer":42}` {
			found = true
		}
	}
	if !found {
		t.Fatalf("no decision_result with the data part in %+v", r.Output)
	}
}

func TestGoPeerToken(t *testing.T) {
	const secret = "s3cret-token-value"
	peer := startGoPeer(t, peerSetup{Token: secret})

	t.Run("right", func(t *testing.T) {
		ts, logs := front(t, peer.URL, func(a *config.A2ABackend) { a.Token = secret })
		mustAnswer(t, ask(t, ts, "hi", ""), "turn 1: hi")
		for _, h := range peer.authHeaders() {
			if h != "Bearer "+secret {
				t.Fatalf("a request came with Authorization %q", h)
			}
		}
		if strings.Contains(logs.String(), secret) {
			t.Fatal("the token is in the log")
		}
	})
	t.Run("wrong", func(t *testing.T) {
		ts, logs := front(t, peer.URL, func(a *config.A2ABackend) { a.Token = "wrong-" + secret })
		r := ask(t, ts, "hi", "")
		mustFail(t, r, "remote_auth_required")
		if strings.Contains(logs.String(), secret) || strings.Contains(fmt.Sprint(r), secret) {
			t.Fatal("the token is in the log or the answer")
		}
	})
}

func TestGoPeerCancel(t *testing.T) {
	for _, c := range goPeerCases[:3] {
		t.Run(c.name, func(t *testing.T) {
			peer := startGoPeer(t, c.setup)
			ts, _ := front(t, peer.URL, nil)
			cancel, seen, done := startStream(t, ts, "hang", "response.agent_activity")
			task := within(t, peer.started, "the remote task to start")
			// The working status reaches the client once the task is known.
			closedWithin(t, seen, "the working status to reach the client")
			cancel() // the client disconnects
			if got := within(t, peer.cancelled, "CancelTask to reach the remote"); got != task {
				t.Fatalf("the remote cancelled %q, want %q", got, task)
			}
			closedWithin(t, done, "the stream to end")
		})
	}
}

func TestGoPeerDeadline(t *testing.T) {
	peer := startGoPeer(t, peerSetup{})
	ts, _ := front(t, peer.URL, func(a *config.A2ABackend) { a.TimeoutSeconds = 0.5 })
	r := ask(t, ts, "hang", "")
	if r.HTTP < 400 {
		t.Fatalf("a turn past the backend's timeout answered HTTP %d: %+v", r.HTTP, r)
	}
	task := within(t, peer.started, "the remote task to start")
	if got := within(t, peer.cancelled, "CancelTask to reach the remote"); got != task {
		t.Fatalf("the remote cancelled %q, want %q", got, task)
	}
}

func TestGoPeerWaitingTaskGone(t *testing.T) {
	peer := startGoPeer(t, peerSetup{})
	ts, logs := front(t, peer.URL, nil)
	first := ask(t, ts, "hello", "")
	mustAnswer(t, first, "turn 1: hello")
	ctx, _ := remoteState(t, ts, first.SessionID)
	// The session says a remote task waits for input, but the remote
	// knows no such task: the turn starts a new task in the same context.
	patch := fmt.Sprintf(`{"stateDelta":{%q:{"url":%q,"contextId":%q,"taskId":"no-such-task"}}}`,
		a2aremote.StateKey, peer.URL, ctx)
	if r := ts.Do("PATCH", "/sessions/"+first.SessionID, "application/json", []byte(patch)); r.Status != 200 {
		t.Fatalf("PATCH: %d %s", r.Status, r.Body)
	}
	mustAnswer(t, ask(t, ts, "again", first.SessionID), "turn 2: again")
	if !strings.Contains(logs.String(), "starting a new one") {
		t.Errorf("the log does not say the waiting task was replaced:\n%s", logs)
	}
}
