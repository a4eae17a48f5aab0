package agui_test

import (
	"bytes"
	"encoding/json"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/harnest/harnest/agui"
	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/server/servertest"
)

func TestMain(m *testing.M) { testutil.Main(m) }

// testServer is a whole harnest server over httptest (servertest), with
// this package's helpers as methods; the server mounts /agui itself.
type testServer struct{ *servertest.Server }

// setup describes a server under test.
type setup struct {
	echo      *config.EchoBackend // the echo backend's options (default: plain echo)
	agent     runtime.Agent       // replaces the backend
	thinking  bool                // show thinking deltas
	tokens    bool                // require alice's and bob's tokens
	tune      func(*runtime.Options)
	maxBody   int64
	keepAlive time.Duration
}

var testTokens = []config.Token{{Token: "token-alice-0123456789", User: "alice"}, {Token: "token-bob-0123456789", User: "bob"}}

// serverSetup is s as servertest starts it.
func (s setup) serverSetup() servertest.Setup {
	return servertest.Setup{
		Agent: s.agent,
		Tune:  s.tune,
		Config: func(c *config.Config) {
			if s.echo != nil {
				c.Spec.Backend.Echo = s.echo
			}
			c.Spec.Output.Thinking = s.thinking
			if s.tokens {
				c.Auth.Tokens = testTokens
			}
			if s.maxBody > 0 {
				c.Server.Limits.MaxRequestBytes = config.ByteSize(s.maxBody)
			}
		},
		AGUI: func(o *agui.Options) { o.KeepAlive = s.keepAlive },
	}
}

// eachStore runs fn against a server on the in-process store and on a
// real redis-server.
func eachStore(t *testing.T, s setup, fn func(t *testing.T, ts *testServer)) {
	servertest.EachStore(t, s.serverSetup(), func(t *testing.T, ts *servertest.Server) { fn(t, &testServer{ts}) })
}

func newTestServer(t testing.TB, redisURL string, s setup) *testServer {
	return &testServer{servertest.Start(t, redisURL, s.serverSetup())}
}

// as returns a copy of the server handle that sends the given token.
func (ts *testServer) as(token string) *testServer { return &testServer{ts.As(token)} }

// reply is a finished exchange, and the AG-UI events when the body was a
// stream.
type reply struct {
	servertest.Reply
	Events []map[string]any
}

func (ts *testServer) do(method, path string, body []byte) reply {
	ts.T.Helper()
	r := reply{Reply: ts.Do(method, path, "application/json", body, "Accept", "text/event-stream")}
	if strings.HasPrefix(r.Header.Get("Content-Type"), "text/event-stream") {
		r.Events = parseStream(ts.T, r.Body)
	}
	return r
}

// run posts a RunAgentInput to /agui.
func (ts *testServer) run(body string) reply {
	ts.T.Helper()
	return ts.do("POST", "/agui", []byte(body))
}

func (ts *testServer) get(path string) reply { return ts.do("GET", path, nil) }

func (ts *testServer) post(path, body string) reply {
	ts.T.Helper()
	return ts.do("POST", path, []byte(body))
}

// integerTimestamp is an event's timestamp written as a whole number.
var integerTimestamp = regexp.MustCompile(`"timestamp":-?[0-9]+[,}]`)

// parseStream reads the frames with the tests' one SSE reader (testutil),
// checks the AG-UI framing (LF only, unnamed data frames, comments
// allowed) and returns the events.
func parseStream(t testing.TB, b []byte) []map[string]any {
	t.Helper()
	if bytes.Contains(b, []byte("\r")) {
		t.Fatalf("stream contains CR: %q", b)
	}
	var events []map[string]any
	for _, f := range testutil.ReadSSE(bytes.NewReader(b)) {
		for _, line := range strings.Split(strings.TrimRight(f.Raw, "\n"), "\n") {
			if !strings.HasPrefix(line, ":") && !strings.HasPrefix(line, "data: ") {
				t.Fatalf("unexpected line %q in frame %q", line, f.Raw)
			}
		}
		if f.Err != nil {
			t.Fatalf("frame is not JSON: %q", f.Raw)
		}
		if k, ok := nullMember(f.Data); ok {
			t.Fatalf("event carries a null %s: %s", k, f.Raw)
		}
		if _, ok := f.Data["timestamp"].(float64); !ok || !integerTimestamp.MatchString(f.Raw) {
			t.Fatalf("event timestamp is not an integer: %s", f.Raw)
		}
		events = append(events, f.Data)
	}
	return events
}

// nullMember names a null member at the top level of an event (values the
// agent chose, CUSTOM value and RUN_FINISHED result, may hold nulls).
func nullMember(ev map[string]any) (string, bool) {
	for k, v := range ev {
		if v == nil && k != "value" && k != "result" {
			return k, true
		}
	}
	return "", false
}

// types lists the events' types.
func types(events []map[string]any) []string {
	out := make([]string, len(events))
	for i, e := range events {
		out[i] = e["type"].(string)
	}
	return out
}

func typesString(events []map[string]any) string { return strings.Join(types(events), ",") }

// mustStatus fails unless the reply has the status; an error reply must be
// {detail, code}.
func mustStatus(t *testing.T, r reply, status int) {
	t.Helper()
	servertest.MustStatus(t, r.Reply, status)
}

// mustRun fails unless the reply is a stream that starts with RUN_STARTED
// and ends with RUN_FINISHED or RUN_ERROR, and returns the last event.
func mustRun(t *testing.T, r reply) map[string]any {
	t.Helper()
	if r.Status != 200 {
		t.Fatalf("status %d: %s", r.Status, r.Body)
	}
	if len(r.Events) < 2 || r.Events[0]["type"] != "RUN_STARTED" {
		t.Fatalf("stream does not start with RUN_STARTED: %s", r.Body)
	}
	last := r.Events[len(r.Events)-1]
	if last["type"] != "RUN_FINISHED" && last["type"] != "RUN_ERROR" {
		t.Fatalf("stream does not end with a terminal event: %s", r.Body)
	}
	for _, e := range r.Events[1 : len(r.Events)-1] {
		if e["type"] == "RUN_STARTED" || e["type"] == "RUN_FINISHED" || e["type"] == "RUN_ERROR" {
			t.Fatalf("lifecycle event inside the run: %s", r.Body)
		}
	}
	return last
}

// find returns the first event of the type, or nil.
func find(events []map[string]any, typ string) map[string]any {
	for _, e := range events {
		if e["type"] == typ {
			return e
		}
	}
	return nil
}

// text joins the TEXT_MESSAGE_CONTENT deltas.
func text(events []map[string]any) string {
	var b strings.Builder
	for _, e := range events {
		if e["type"] == "TEXT_MESSAGE_CONTENT" {
			b.WriteString(e["delta"].(string))
		}
	}
	return b.String()
}

// untilFirstText reads a run's stream up to its first text delta (for
// tests that act while a run streams).
func untilFirstText(body io.Reader) {
	testutil.EachSSE(body, func(f testutil.SSEFrame) bool { return f.Data["type"] != "TEXT_MESSAGE_CONTENT" })
}

// waitStatus polls a receipt until it has the status.
func waitStatus(t *testing.T, ts *testServer, rid, sid, status string) {
	t.Helper()
	got := ""
	for i := 0; i < 300 && got != status; i++ {
		var env struct{ Status string }
		_ = json.Unmarshal(ts.get("/responses/"+rid+"?sessionId="+sid).Body, &env)
		got = env.Status
		if got != status {
			time.Sleep(10 * time.Millisecond)
		}
	}
	if got != status {
		t.Fatalf("receipt %s stayed %q, want %q", rid, got, status)
	}
}
