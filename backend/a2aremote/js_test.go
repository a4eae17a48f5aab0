package a2aremote_test

import (
	"strings"
	"testing"

	"github.com/harnest/harnest/internal/testutil"
)

// jsPeer is conformance/a2a-js/remote-peer.mjs running in node.
type jsPeer struct {
	URL       string
	started   chan string
	cancelled chan string
}

// startJSPeer runs remote-peer.mjs for the spec version and binding on a
// free loopback port, or skips the test when node or the packages are
// missing (fails under HARNEST_REQUIRE_NODE=1). The process is killed when
// the test ends.
func startJSPeer(t *testing.T, version, binding string) *jsPeer {
	t.Helper()
	dir := testutil.A2AJSDir()
	node := testutil.RequireNode(t, dir, "@a2a-js/sdk", "a2a-js-sdk-03", "express")
	p := &jsPeer{started: make(chan string, 8), cancelled: make(chan string, 8)}
	port := testutil.StartNodeServer(t, node, dir, func(line string) {
		word, rest, _ := strings.Cut(line, " ")
		switch word {
		case "started":
			p.started <- rest
		case "cancelled":
			p.cancelled <- rest
		}
	}, "remote-peer.mjs", version, binding, "0")
	p.URL = "http://127.0.0.1:" + port
	return p
}

func TestJSPeer(t *testing.T) {
	for _, version := range []string{"1.0", "0.3"} {
		for _, binding := range []string{"JSONRPC", "HTTP+JSON"} {
			t.Run("v"+version+"-"+binding, func(t *testing.T) {
				peer := startJSPeer(t, version, binding)
				ts, logs := front(t, peer.URL, nil)

				text, activities, last := deltas(streamed(t, ts, "hello", ""))
				if text != "turn 1: hello" || len(activities) == 0 || activities[0] != "working on it" {
					t.Fatalf("streamed %q with activities %q: %v\n%s", text, activities, last, logs)
				}
				// 0.3 HTTP+JSON bodies differ between SDKs: a card that
				// also lists 0.3 JSON-RPC is used over JSON-RPC.
				want := "binding=" + binding
				if version == "0.3" {
					want = "binding=JSONRPC"
				}
				if !strings.Contains(logs.String(), want) {
					t.Errorf("the log does not say %s:\n%s", want, logs)
				}
				session, _ := last["sessionId"].(string)
				mustAnswer(t, ask(t, ts, "again", session), "turn 2: again")
				mustAnswer(t, ask(t, ts, "ask", session), "What is your name?")
				mustAnswer(t, ask(t, ts, "Ada", session), "Hello, Ada!")

				cancel, seen, done := startStream(t, ts, "hang", "response.agent_activity")
				task := within(t, peer.started, "the remote task to start")
				closedWithin(t, seen, "the working status to reach the client")
				cancel()
				if got := within(t, peer.cancelled, "CancelTask to reach the remote"); got != task {
					t.Fatalf("the remote cancelled %q, want %q", got, task)
				}
				closedWithin(t, done, "the stream to end")
			})
		}
	}
}
