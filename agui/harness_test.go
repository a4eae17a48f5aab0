package agui_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/harnest/harnest/agui"
	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/auth"
	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/server"
)

func TestMain(m *testing.M) { testutil.Main(m) }

// testServer is a whole harnest server over httptest with this package's
// handler mounted at /agui, as the server will mount it.
type testServer struct {
	t     testing.TB
	URL   string
	srv   *server.Server
	token string
}

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

// eachStore runs fn against a server on the embedded store and, when
// redis-server is installed, on a real one.
func eachStore(t *testing.T, s setup, fn func(t *testing.T, ts *testServer)) {
	for _, c := range testutil.Stores(t) {
		t.Run(c.Name, func(t *testing.T) { fn(t, newTestServer(t, c.URL, s)) })
	}
}

func newTestServer(t testing.TB, redisURL string, s setup) *testServer {
	t.Helper()
	f, err := config.Load("../examples/hello")
	if err != nil {
		t.Fatal(err)
	}
	cfg := &f.Config
	cfg.Store.KeyPrefix = testutil.Prefix(t)
	if s.echo != nil {
		cfg.Spec.Backend.Echo = s.echo
	}
	cfg.Spec.Output.Thinking = s.thinking
	if s.tokens {
		cfg.Auth.Tokens = testTokens
	}
	if s.maxBody > 0 {
		cfg.Server.Limits.MaxRequestBytes = config.ByteSize(s.maxBody)
	}
	srv, err := server.New(context.Background(), f, server.Options{RedisURL: redisURL, Agent: s.agent, Tune: s.tune})
	if err != nil {
		t.Fatal(err)
	}
	tokens := make([]auth.Token, len(cfg.Auth.Tokens))
	for i, tok := range cfg.Auth.Tokens {
		tokens[i] = auth.Token{Token: tok.Token, User: tok.User}
	}
	mux := http.NewServeMux()
	mux.Handle("/agui", auth.New(tokens, nil).Middleware(agui.New(agui.Options{
		Service: srv.Service, MaxBodyBytes: int(cfg.Server.Limits.MaxRequestBytes), KeepAlive: s.keepAlive,
		Store: srv.Store,
	})))
	mux.Handle("/", srv.Handler)
	hs := httptest.NewServer(mux)
	t.Cleanup(func() {
		hs.CloseClientConnections()
		hs.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		_ = srv.Service.Shutdown(ctx)
		srv.Close()
	})
	return &testServer{t: t, URL: hs.URL, srv: srv}
}

func (ts *testServer) as(token string) *testServer {
	c := *ts
	c.token = token
	return &c
}

// reply is a finished exchange: the status, headers, raw body, and the
// AG-UI events when the body was a stream.
type reply struct {
	Status int
	Header http.Header
	Body   []byte
	Events []map[string]any
}

func (ts *testServer) do(method, path string, body []byte) reply {
	ts.t.Helper()
	req, err := http.NewRequest(method, ts.URL+path, bytes.NewReader(body))
	if err != nil {
		ts.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	if ts.token != "" {
		req.Header.Set("Authorization", "Bearer "+ts.token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		ts.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	r := reply{Status: resp.StatusCode, Header: resp.Header, Body: b}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		r.Events = parseStream(ts.t, b)
	}
	return r
}

// run posts a RunAgentInput to /agui.
func (ts *testServer) run(body string) reply {
	ts.t.Helper()
	return ts.do("POST", "/agui", []byte(body))
}

func (ts *testServer) get(path string) reply { return ts.do("GET", path, nil) }

// parseStream checks the AG-UI framing (LF only, unnamed data frames,
// comments allowed) and returns the events.
func parseStream(t testing.TB, b []byte) []map[string]any {
	t.Helper()
	if bytes.Contains(b, []byte("\r")) {
		t.Fatalf("stream contains CR: %q", b)
	}
	var events []map[string]any
	for _, frame := range strings.Split(string(b), "\n\n") {
		if frame == "" {
			continue
		}
		data := ""
		for _, line := range strings.Split(frame, "\n") {
			switch {
			case strings.HasPrefix(line, ":"):
			case strings.HasPrefix(line, "data: "):
				data += strings.TrimPrefix(line, "data: ")
			default:
				t.Fatalf("unexpected line %q in frame %q", line, frame)
			}
		}
		if data == "" {
			continue
		}
		if strings.Contains(data, "null") && hasNull(data) {
			t.Fatalf("event carries a null: %s", data)
		}
		var ev map[string]any
		dec := json.NewDecoder(strings.NewReader(data))
		dec.UseNumber()
		if err := dec.Decode(&ev); err != nil {
			t.Fatalf("frame is not JSON: %q", data)
		}
		if ts, ok := ev["timestamp"].(json.Number); !ok || strings.ContainsAny(ts.String(), ".eE") {
			t.Fatalf("event timestamp is not an integer: %s", data)
		}
		events = append(events, ev)
	}
	return events
}

// hasNull reports a null member at the top level or in an event's fixed
// fields (values the agent chose, such as CUSTOM value, may hold nulls).
func hasNull(data string) bool {
	var ev map[string]json.RawMessage
	if json.Unmarshal([]byte(data), &ev) != nil {
		return false
	}
	for k, v := range ev {
		if string(v) == "null" && k != "value" && k != "result" {
			return true
		}
	}
	return false
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
	if r.Status != status {
		t.Fatalf("status %d, want %d: %s", r.Status, status, r.Body)
	}
	if status >= 400 {
		var e struct{ Detail, Code string }
		if json.Unmarshal(r.Body, &e) != nil || e.Detail == "" || e.Code == "" {
			t.Fatalf("error body is not {detail, code}: %s", r.Body)
		}
	}
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

// readLines reads a stream line by line until fn says stop (for tests that
// act while a run streams).
func readLines(r io.Reader, fn func(line string) bool) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if fn(sc.Text()) {
			return
		}
	}
}
