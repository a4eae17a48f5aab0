package a2a_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/harnest/harnest/a2a"
	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/server/servertest"
)

func TestMain(m *testing.M) { testutil.Main(m) }

// Task states and the agent's role of A2A 1.0, as they go over the wire.
const (
	stateSubmitted     = "TASK_STATE_SUBMITTED"
	stateWorking       = "TASK_STATE_WORKING"
	stateCompleted     = "TASK_STATE_COMPLETED"
	stateCanceled      = "TASK_STATE_CANCELED"
	stateInputRequired = "TASK_STATE_INPUT_REQUIRED"
	roleAgent          = "ROLE_AGENT"
)

// The helpers package a2a's own tests use too.
var (
	testCard = a2a.EchoCard
	dig      = a2a.Dig
	str      = a2a.Str
)

// harness is a whole harnest server over httptest (servertest) serving
// the bindings of its card, with this package's helpers as methods.
type harness struct {
	*servertest.Server
	srv *a2a.Server // the server's A2A bindings
}

// setup describes a server under test: the echo agent (or agent) behind
// the bindings of card (default testCard: JSON-RPC at /a2a, HTTP+JSON at
// /rest, A2A 1.0 and 0.3, streaming).
type setup struct {
	echo     config.EchoBackend
	agent    runtime.Agent
	card     map[string]any
	extended map[string]any // the extended card (Options.ExtendedCard)
	config   func(*config.Config)
}

// testUser is the caller: the X-Test-User header's user, else anonymous;
// "-" is no user at all (a request the auth middleware did not resolve).
func testUser(r *http.Request) runtime.Principal {
	if u := r.Header.Get("X-Test-User"); u == "-" {
		return runtime.Principal{}
	} else if u != "" {
		return runtime.Principal{UserID: u}
	}
	return runtime.Anonymous
}

// serverSetup is s as servertest starts it.
func (s setup) serverSetup() servertest.Setup {
	card := s.card
	if card == nil {
		card = testCard("http://127.0.0.1:1907", true)
	}
	echo := s.echo
	return servertest.Setup{
		Agent:     s.agent,
		Card:      card,
		PublicURL: true, // the served card names the test server
		Config: func(c *config.Config) {
			c.Spec.Backend.Echo = &echo
			c.Spec.Output.Thinking = true
			if s.config != nil {
				s.config(c)
			}
		},
		Tune: func(o *runtime.Options) { o.FlushDelay, o.Lease = 5*time.Millisecond, 3*time.Second },
		A2A:  func(o *a2a.Options) { o.Principal, o.ExtendedCard = testUser, s.extended },
	}
}

func newHarness(t testing.TB, s setup) *harness {
	t.Helper()
	return harnessOf(servertest.Start(t, "", s.serverSetup()))
}

func harnessOf(ts *servertest.Server) *harness {
	return &harness{Server: ts, srv: ts.Srv.A2A()}
}

// eachStore runs fn on the in-process store and on a real redis-server.
func eachStore(t *testing.T, s setup, fn func(t *testing.T, h *harness)) {
	servertest.EachStore(t, s.serverSetup(), func(t *testing.T, ts *servertest.Server) { fn(t, harnessOf(ts)) })
}

// reply is a finished HTTP exchange.
type reply = servertest.Reply

// do sends a JSON body; headers are name, value pairs.
func (h *harness) do(method, path string, body string, headers ...string) reply {
	h.T.Helper()
	return h.Do(method, path, "application/json", []byte(body), headers...)
}

// rpc calls a JSON-RPC method; version "" sends no A2A-Version header.
func (h *harness) rpc(version, method string, params any, headers ...string) reply {
	h.T.Helper()
	p, _ := json.Marshal(params)
	body := `{"jsonrpc":"2.0","id":"1","method":"` + method + `","params":` + string(p) + `}`
	if version != "" {
		headers = append(headers, "A2A-Version", version)
	}
	return h.do("POST", "/a2a", body, headers...)
}

// sse reads an event stream's frames (the tests' one SSE reader:
// testutil) as JSON objects; a reply that is not a stream is its one JSON
// body.
func (h *harness) sse(method, path, body string, headers ...string) (int, string, []map[string]any) {
	h.T.Helper()
	resp, err := http.DefaultClient.Do(h.Request(method, path, "application/json", []byte(body), headers...))
	if err != nil {
		h.T.Fatal(err)
	}
	defer resp.Body.Close()
	ct := resp.Header.Get("Content-Type")
	if !strings.HasPrefix(ct, "text/event-stream") {
		b, _ := io.ReadAll(resp.Body)
		var v map[string]any
		_ = json.Unmarshal(b, &v)
		return resp.StatusCode, ct, []map[string]any{v}
	}
	var out []map[string]any
	for _, f := range testutil.ReadSSE(resp.Body) {
		if f.Err != nil {
			h.T.Fatalf("SSE data is not JSON: %s", f.Raw)
		}
		out = append(out, f.Data)
	}
	return resp.StatusCode, ct, out
}

func msg10(text string, extra ...string) map[string]any {
	m := map[string]any{"messageId": "m-" + text, "role": "ROLE_USER", "parts": []any{map[string]any{"text": text}}}
	for i := 0; i+1 < len(extra); i += 2 {
		m[extra[i]] = extra[i+1]
	}
	return m
}

func compactJSON(b []byte) string {
	var buf bytes.Buffer
	_ = json.Compact(&buf, b)
	return buf.String()
}
