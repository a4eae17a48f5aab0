package a2aremote_test

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// requireNodeEnv, when 1, makes the @a2a-js/sdk tests fail instead of
// skipping when node or conformance/a2a-js/node_modules is missing (CI
// sets it after npm ci in conformance/a2a-js).
const requireNodeEnv = "HARNEST_REQUIRE_NODE"

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
	dir, err := filepath.Abs("../../conformance/a2a-js")
	if err != nil {
		t.Fatal(err)
	}
	problem := ""
	node, err := exec.LookPath("node")
	if err != nil {
		problem = "node is not on PATH"
	}
	for _, pkg := range []string{"@a2a-js/sdk", "a2a-js-sdk-03", "express"} {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", pkg, "package.json")); err != nil && problem == "" {
			problem = "conformance/a2a-js/node_modules lacks " + pkg + " (run npm ci in conformance/a2a-js)"
		}
	}
	if problem != "" {
		if os.Getenv(requireNodeEnv) == "1" {
			t.Fatalf("the @a2a-js/sdk peers are required (%s=1): %s", requireNodeEnv, problem)
		}
		t.Skip(problem)
	}
	cmd := exec.Command(node, "remote-peer.mjs", version, binding, "0")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	stop := func() { once.Do(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }) }
	t.Cleanup(stop)

	p := &jsPeer{started: make(chan string, 8), cancelled: make(chan string, 8)}
	ready := make(chan string, 1)
	go func() {
		defer close(ready)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			word, rest, _ := strings.Cut(sc.Text(), " ")
			switch word {
			case "listening":
				ready <- rest
			case "started":
				p.started <- rest
			case "cancelled":
				p.cancelled <- rest
			}
		}
	}()
	select {
	case port, ok := <-ready:
		if !ok {
			stop()
			t.Fatalf("remote-peer.mjs exited before listening: %s", stderr.String())
		}
		p.URL = fmt.Sprintf("http://127.0.0.1:%s", port)
	case <-time.After(20 * time.Second):
		stop()
		t.Fatalf("remote-peer.mjs did not listen within 20s: %s", stderr.String())
	}
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
