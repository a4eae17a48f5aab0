package main

// End-to-end tests of `harnest pair` and `harnest connect` against an
// in-process replica (servertest): the whole server with the relay backend.

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/server/servertest"
)

const relayOwnerToken = "token-owner-0123456789"

// relayReplica is a whole harnest server (servertest) whose backend is the
// relay, with alice as its owner.
type relayReplica struct{ *servertest.Server }

// newRelayReplica starts a replica on the store of redisURL ("" is the
// in-process store); backend nil is the relay with its defaults.
func newRelayReplica(t *testing.T, redisURL string, backend *config.RelayBackend) *relayReplica {
	t.Helper()
	if backend == nil {
		backend = &config.RelayBackend{}
	}
	ts := servertest.Start(t, redisURL, servertest.Setup{Config: func(c *config.Config) {
		c.Auth.Tokens = []config.Token{{Token: relayOwnerToken, User: "alice", Owner: true}}
		c.Spec.Backend = config.Backend{Relay: backend}
	}})
	return &relayReplica{ts.As(relayOwnerToken)}
}

func envOf(kv map[string]string) func(string) string {
	return func(k string) string { return kv[k] }
}

// pairCode runs `harnest pair` as the owner and returns the code it printed.
func (rr *relayReplica) pairCode(t *testing.T, name, kind string) string {
	t.Helper()
	var out, errb bytes.Buffer
	code := runPair(context.Background(), []string{"--server", rr.URL, "--name", name, "--kind", kind},
		envOf(map[string]string{"HARNEST_TOKEN": relayOwnerToken}), &out, &errb)
	if code != 0 {
		t.Fatalf("pair exit %d: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	if len(lines) != 1 || len(lines[0]) < 8 {
		t.Fatalf("pair printed %q, want the code alone", out.String())
	}
	return lines[0]
}

// connectRun is a running `harnest connect`.
type connectRun struct {
	cancel context.CancelFunc
	done   chan int
	stdout *lockedBuffer
	stderr *lockedBuffer
}

func (rr *relayReplica) connect(t *testing.T, code string, args ...string) *connectRun {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	c := &connectRun{cancel: cancel, done: make(chan int, 1), stdout: &lockedBuffer{}, stderr: &lockedBuffer{}}
	full := append([]string{"--server", rr.URL, "--wait", "2"}, args...)
	go func() {
		c.done <- runConnect(ctx, full, envOf(map[string]string{"HARNEST_PAIRING_CODE": code}), c.stdout, c.stderr)
	}()
	t.Cleanup(func() { cancel(); <-c.doneOnce() })
	return c
}

func (c *connectRun) doneOnce() <-chan int {
	ch := make(chan int, 1)
	go func() {
		select {
		case v := <-c.done:
			ch <- v
			c.done <- v
		case <-time.After(10 * time.Second):
			ch <- -1
		}
	}()
	return ch
}

func (c *connectRun) exit(t *testing.T, limit time.Duration) int {
	t.Helper()
	select {
	case v := <-c.done:
		c.done <- v
		return v
	case <-time.After(limit):
		t.Fatalf("connect still running; stderr: %s", c.stderr.String())
	}
	return 0
}

// respond posts a turn as the owner and returns the status and the JSON
// body.
func (rr *relayReplica) respond(t *testing.T, input string) (int, map[string]any) {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"input": input})
	r := rr.Post("/responses", string(body))
	var v map[string]any
	_ = json.Unmarshal(r.Body, &v)
	return r.Status, v
}

// ownerDo sends a request without a body as the owner.
func (rr *relayReplica) ownerDo(t *testing.T, method, path string) (int, []byte) {
	t.Helper()
	r := rr.Do(method, path, "", nil)
	return r.Status, r.Body
}

func waitConnected(t *testing.T, c *connectRun) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(c.stderr.String(), "waiting for questions") {
		if time.Now().After(deadline) {
			t.Fatalf("connect did not pair: %s", c.stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestConnectAnswersTurns(t *testing.T) {
	needProgram(t, "sh")
	for _, sc := range testutil.Stores(t) {
		t.Run(sc.Name, func(t *testing.T) {
			rr := newRelayReplica(t, sc.URL, &config.RelayBackend{Name: "Shouter", Kind: "cli"})
			code := rr.pairCode(t, "Shouter", "cli")
			c := rr.connect(t, code, "--name", "Shouter", "--kind", "cli", "--exec", `sh -c 'tr a-z A-Z'`)
			waitConnected(t, c)
			for _, q := range []string{"hello relay", "a second turn"} {
				status, v := rr.respond(t, q)
				if status != 200 || v["outputText"] != strings.ToUpper(q) {
					t.Fatalf("turn %q: %d %v; connect: %s", q, status, v, c.stderr.String())
				}
			}
			if strings.Contains(c.stderr.String()+c.stdout.String(), "hrn_") {
				t.Fatal("the session token was printed")
			}
			// The owner disconnects: connect stops with a sentence.
			_, raw := rr.ownerDo(t, "GET", "/owner/outside-agents/participants")
			var ps struct {
				Participants []struct {
					ID string `json:"participant_id"`
				}
			}
			_ = json.Unmarshal(raw, &ps)
			if len(ps.Participants) != 1 {
				t.Fatalf("participants %s", raw)
			}
			if st, _ := rr.ownerDo(t, "POST", "/owner/outside-agents/participants/"+ps.Participants[0].ID+"/disconnect"); st != 204 {
				t.Fatalf("disconnect %d", st)
			}
			if code := c.exit(t, 10*time.Second); code != 1 || !strings.Contains(c.stderr.String(), "pair") {
				t.Fatalf("exit %d: %s", code, c.stderr.String())
			}
		})
	}
}

func TestConnectFailingCommandRunsOnce(t *testing.T) {
	needProgram(t, "sh")
	rr := newRelayReplica(t, "", &config.RelayBackend{DeadlineSeconds: 2})
	code := rr.pairCode(t, "Failer", "cli")
	count := filepath.Join(t.TempDir(), "count")
	c := rr.connect(t, code, "--name", "Failer", "--kind", "cli", "--exec", `sh -c 'echo run >> "$0"; exit 3' `+count)
	waitConnected(t, c)
	start := time.Now()
	status, v := rr.respond(t, "will you answer?")
	if status == 200 {
		t.Fatalf("turn answered: %v", v)
	}
	if d := time.Since(start); d < 1500*time.Millisecond || d > 10*time.Second {
		t.Fatalf("turn failed after %v", d)
	}
	b, _ := os.ReadFile(count)
	if n := strings.Count(string(b), "run"); n != 1 {
		t.Fatalf("command ran %d times: %s", n, c.stderr.String())
	}
}

func TestConnectNoticeAndSelfTest(t *testing.T) {
	needProgram(t, "sh")
	rr := newRelayReplica(t, "", nil)
	code := rr.pairCode(t, "Notifier", "cli")
	var out, errb bytes.Buffer
	rc := runConnect(context.Background(), []string{"--server", rr.URL, "--name", "Notifier", "--kind", "cli", "--notice", "The tests passed."},
		envOf(map[string]string{"HARNEST_PAIRING_CODE": code}), &out, &errb)
	if rc != 0 || out.String() != "Notice sent.\n" {
		t.Fatalf("notice: %d %q %s", rc, out.String(), errb.String())
	}
	if st, raw := rr.ownerDo(t, "GET", "/owner/outside-agents/feed"); st != 200 || !strings.Contains(string(raw), "The tests passed.") {
		t.Fatalf("feed %d %s", st, raw)
	}
	// A used code cannot pair again.
	out.Reset()
	errb.Reset()
	if rc := runConnect(context.Background(), []string{"--server", rr.URL, "--name", "Notifier", "--kind", "cli", "--notice", "again"},
		envOf(map[string]string{"HARNEST_PAIRING_CODE": code}), &out, &errb); rc != 1 {
		t.Fatalf("reused code: exit %d", rc)
	}

	out.Reset()
	if rc := runConnect(context.Background(), []string{"--self-test", "--exec", "cat"}, envOf(nil), &out, &errb); rc != 0 || !strings.Contains(out.String(), "Self-test passed") {
		t.Fatalf("self-test: %d %s %s", rc, out.String(), errb.String())
	}
	for _, bad := range []string{"false", `sh -c 'printf "   "'`, `sh -c 'sleep 5'`} {
		errb.Reset()
		if rc := runConnect(context.Background(), []string{"--self-test", "--timeout", "500ms", "--exec", bad}, envOf(nil), &out, &errb); rc != 1 {
			t.Fatalf("self-test of %q passed", bad)
		}
	}
	// The code is never a flag or an argument.
	if rc := runConnect(context.Background(), []string{"--server", rr.URL, "--name", "N", "--kind", "cli", "--exec", "cat", "SOME-CODE"},
		envOf(nil), &out, &errb); rc != 2 {
		t.Fatalf("positional code accepted: %d", rc)
	}
	// Pairing needs the owner's token.
	if rc := runPair(context.Background(), []string{"--server", rr.URL, "--name", "N", "--kind", "cli"}, envOf(nil), &out, &errb); rc != 1 {
		t.Fatalf("pair without token: %d", rc)
	}
}

func TestSplitArgs(t *testing.T) {
	for in, want := range map[string][]string{
		`sh -c 'tr a-z A-Z'`:          {"sh", "-c", "tr a-z A-Z"},
		`python3  "my script.py" --x`: {"python3", "my script.py", "--x"},
		`a\ b "c\"d" ''`:              {"a b", `c"d`, ""},
	} {
		got, err := splitArgs(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("splitArgs(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{`'open`, `"open`, `trailing\`} {
		if _, err := splitArgs(bad); err == nil {
			t.Fatalf("splitArgs(%q) accepted", bad)
		}
	}
}

func TestCommandChildEnv(t *testing.T) {
	t.Setenv("HARNEST_TOKEN", "owner-secret")
	t.Setenv("HARNEST_PAIRING_CODE", "ABCD-EFGH")
	t.Setenv("HARNEST_RUN_NOTE", "inherited-note")
	t.Setenv("GEMINI_API_KEY", "gemini-key")
	t.Setenv("HARNEST_CHILD_ENV_TEST", "kept")
	a := &commandAnswerer{argv: []string{"x"}, dropEnv: []string{"GEMINI_API_KEY"}}
	env := a.env(job{text: "q", server: "http://127.0.0.1:1/"})
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "HARNEST_TOKEN", "HARNEST_PAIRING_CODE", "HARNEST_RUN_NOTE", "GEMINI_API_KEY", "HARNEST_CALLBACK_TOKEN":
			t.Errorf("the child sees %s", kv)
		}
	}
	if !slices.Contains(env, "HARNEST_CHILD_ENV_TEST=kept") {
		t.Error("the child lost an ordinary variable")
	}
	// With tools at home, the item's note and the pairing's token.
	env = a.env(job{text: "q", server: "http://127.0.0.1:1/", runNote: "note-1", callbackToken: "hrn_cb_x"})
	for _, kv := range []string{"HARNEST_RUN_NOTE=note-1", "HARNEST_CALLBACK_TOKEN=hrn_cb_x",
		"HARNEST_TOOLS_URL=http://127.0.0.1:1/api/outside-agents/v1/tools/call"} {
		if !slices.Contains(env, kv) {
			t.Errorf("the child does not see %s", kv)
		}
	}
}
