package mcpapi_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/harnest/harnest/internal/auth"
	"github.com/harnest/harnest/mcpapi"
	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/server/servertest"
	"github.com/harnest/harnest/store/memstore"
)

// sessionDoor is a bare /mcp handler whose caller is the user its bearer
// token names ("Bearer alice" is alice).
func sessionDoor(t *testing.T, o mcpapi.Options) string {
	t.Helper()
	o.AgentName = "hello"
	o.Sessions = bareStore(t)
	door := mcpapi.New(o)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := runtime.Anonymous
		if user, ok := auth.BearerToken(r); ok {
			p = runtime.Principal{UserID: user}
		}
		door.ServeHTTP(w, r.WithContext(auth.With(r.Context(), p)))
	}))
	t.Cleanup(func() {
		_ = door.(io.Closer).Close()
		srv.Close()
	})
	return srv.URL
}

// bareStore is an in-process store for a door tested alone, closed when
// the test ends.
func bareStore(t *testing.T) *memstore.Store {
	st := memstore.New(memstore.Options{})
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// mcpReply is an answer of /mcp.
type mcpReply struct {
	status  int
	header  http.Header
	body    string
	session string // Mcp-Session-Id
}

// mcpPost sends a JSON-RPC message to /mcp as user, on session when set.
func mcpPost(t *testing.T, url, user, session, body string) mcpReply {
	t.Helper()
	return mcpDo(t, "POST", url, user, session, body)
}

func mcpDo(t *testing.T, method, url, user, session, body string) mcpReply {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if user != "" {
		req.Header.Set("Authorization", "Bearer "+user)
	}
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	c := &http.Client{Timeout: 10 * time.Second}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return mcpReply{status: resp.StatusCode, header: resp.Header, body: string(b), session: resp.Header.Get("Mcp-Session-Id")}
}

const (
	initializeCall = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	pingCall       = `{"jsonrpc":"2.0","id":2,"method":"ping"}`
)

// open initialises a session as user and returns its ID.
func open(t *testing.T, url, user string) string {
	t.Helper()
	r := mcpPost(t, url, user, "", initializeCall)
	if r.status != http.StatusOK || r.session == "" {
		t.Fatalf("%s's initialize: %d %s (session %q)", user, r.status, r.body, r.session)
	}
	return r.session
}

// refused checks a refusal to open a session: its status, code and
// Retry-After, and that no session was opened.
func refused(t *testing.T, r mcpReply, status int, code string) {
	t.Helper()
	var body struct{ Code, Detail string }
	_ = json.Unmarshal([]byte(r.body), &body)
	if r.status != status || body.Code != code || r.header.Get("Retry-After") == "" || r.session != "" {
		t.Fatalf("past the bound: %d %s (Retry-After %q, session %q), want %d %s", r.status, r.body,
			r.header.Get("Retry-After"), r.session, status, code)
	}
	if !strings.Contains(body.Detail, "MCP session") {
		t.Errorf("refusal %q does not say what is full", body.Detail)
	}
}

// TestSessionBounds: a user past MaxSessionsPerUser gets 429, the server
// past MaxSessions 503; a session closed (DELETE) frees its place.
func TestSessionBounds(t *testing.T) {
	url := sessionDoor(t, mcpapi.Options{MaxSessions: 3, MaxSessionsPerUser: 2})
	a1 := open(t, url, "alice")
	open(t, url, "alice")
	refused(t, mcpPost(t, url, "alice", "", initializeCall), http.StatusTooManyRequests, "too_many_mcp_sessions")

	open(t, url, "bob")
	refused(t, mcpPost(t, url, "bob", "", initializeCall), http.StatusServiceUnavailable, "mcp_sessions_full")

	if r := mcpDo(t, "DELETE", url, "alice", a1, ""); r.status != http.StatusNoContent {
		t.Fatalf("DELETE alice's session: %d %s", r.status, r.body)
	}
	open(t, url, "alice") // her closed session's place
	refused(t, mcpPost(t, url, "bob", "", initializeCall), http.StatusServiceUnavailable, "mcp_sessions_full")
}

// TestIdleSessionsEnd: a session that gets no request for the idle time
// ends (404), and frees its place.
func TestIdleSessionsEnd(t *testing.T) {
	if mcpapi.DefaultSessionIdleTimeout > 10*time.Minute {
		t.Errorf("an idle session is kept %s by default, want at most 10 minutes", mcpapi.DefaultSessionIdleTimeout)
	}
	url := sessionDoor(t, mcpapi.Options{SessionIdleTimeout: 300 * time.Millisecond, MaxSessionsPerUser: 1})
	s := open(t, url, "alice")
	refused(t, mcpPost(t, url, "alice", "", initializeCall), http.StatusTooManyRequests, "too_many_mcp_sessions")
	deadline := time.Now().Add(10 * time.Second)
	for {
		r := mcpPost(t, url, "alice", s, pingCall)
		if r.status == http.StatusNotFound {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the idle session still answers after 10 s: %d %s", r.status, r.body)
		}
		time.Sleep(500 * time.Millisecond) // longer than the idle time: the ping itself keeps it alive
	}
	open(t, url, "alice")
}

// TestOtherUsersSessionIsNotFound: a request on another user's session is
// answered as one on an unknown session, whatever its method, and changes
// nothing.
func TestOtherUsersSessionIsNotFound(t *testing.T) {
	url := sessionDoor(t, mcpapi.Options{})
	mine := open(t, url, "alice")
	for _, method := range []string{"POST", "GET", "DELETE"} {
		body := ""
		if method == "POST" {
			body = pingCall
		}
		unknown := mcpDo(t, method, url, "bob", "no-such-session", body)
		other := mcpDo(t, method, url, "bob", mine, body)
		if other.status != http.StatusNotFound || unknown.status != http.StatusNotFound || other.body != unknown.body ||
			other.header.Get("Content-Type") != unknown.header.Get("Content-Type") {
			t.Errorf("%s: bob on alice's session %d %q (%s), on an unknown one %d %q (%s): want the same 404",
				method, other.status, other.body, other.header.Get("Content-Type"), unknown.status, unknown.body, unknown.header.Get("Content-Type"))
		}
	}
	if r := mcpPost(t, url, "alice", mine, pingCall); r.status != http.StatusOK {
		t.Errorf("alice's session after bob's DELETE: %d %s", r.status, r.body)
	}
	// Without auth every caller is the anonymous user, whose sessions
	// are refused to named users too.
	anon := open(t, url, "")
	if r := mcpPost(t, url, "bob", anon, pingCall); r.status != http.StatusNotFound {
		t.Errorf("bob on the anonymous user's session: %d %s", r.status, r.body)
	}
}

// TestOutputSchemaIsStrict: the tool's output schema passes the MCP
// Inspector's strict checks: every property has one JSON type (no
// ["null","object"] union), requiredAction is an object that may be left
// out, and its arguments an object with any members.
func TestOutputSchemaIsStrict(t *testing.T) {
	ts := &servertest.Server{T: t, URL: sessionDoor(t, mcpapi.Options{})}
	tools, err := connect(t, ts, client{}).ListTools(context.Background(), nil)
	if err != nil || len(tools.Tools) != 1 {
		t.Fatalf("tools/list: %v %+v", err, tools)
	}
	b, _ := json.Marshal(tools.Tools[0].OutputSchema)
	var schema map[string]any
	if err := json.Unmarshal(b, &schema); err != nil {
		t.Fatal(err)
	}
	var walk func(path string, s map[string]any)
	walk = func(path string, s map[string]any) {
		if _, one := s["type"].(string); !one {
			t.Errorf("%s: type %v, want one JSON type", path, s["type"])
		}
		props, _ := s["properties"].(map[string]any)
		for name, p := range props {
			walk(path+"."+name, p.(map[string]any))
		}
	}
	walk("output", schema)
	props := schema["properties"].(map[string]any)
	ra := props["requiredAction"].(map[string]any)
	args := ra["properties"].(map[string]any)["arguments"].(map[string]any)
	if ra["type"] != "object" || args["type"] != "object" || args["additionalProperties"] != true {
		t.Errorf("requiredAction %v, arguments %v: want objects, arguments with any members", ra["type"], args)
	}
	for _, r := range schema["required"].([]any) {
		if r == "requiredAction" {
			t.Errorf("requiredAction is required: %s", b)
		}
	}
}

// TestNewProtocolFallsBack: a 2026-07-28 request (no session, no
// initialize) gets the SDK's JSON-RPC error listing the versions served,
// so that its client falls back to initialize; no session is opened.
func TestNewProtocolFallsBack(t *testing.T) {
	url := sessionDoor(t, mcpapi.Options{})
	req, err := http.NewRequest("POST", url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Authorization", "Bearer alice")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(b), `"error"`) || !strings.Contains(string(b), "2025-11-25") {
		t.Fatalf("a 2026-07-28 request: %d %s, want the JSON-RPC error naming the versions served", resp.StatusCode, b)
	}
}

// TestSessionIDStaysShort: the session ID keeps only what the server reads
// of initialize, so a client that declares large experimental capabilities
// or icons still gets a short header.
func TestSessionIDStaysShort(t *testing.T) {
	url := sessionDoor(t, mcpapi.Options{})
	big := strings.Repeat("x", 8000)
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",` +
		`"capabilities":{"elicitation":{},"experimental":{"blob":"` + big + `"}},` +
		`"clientInfo":{"name":"t","version":"1","icons":[{"src":"data:image/png;base64,` + big + `"}]}}}`
	r := mcpPost(t, url, "alice", "", init)
	if r.status != http.StatusOK || r.session == "" || len(r.session) > 1024 {
		t.Fatalf("initialize: %d, a session ID of %d bytes, want at most 1 KiB", r.status, len(r.session))
	}
	if p := mcpPost(t, url, "alice", r.session, pingCall); p.status != http.StatusOK {
		t.Fatalf("ping: %d %s", p.status, p.body)
	}
}

// TestUnsupportedProtocolVersion: a request of a session with a protocol
// version the SDK does not speak is refused, as the SDK's handler does.
func TestUnsupportedProtocolVersion(t *testing.T) {
	url := sessionDoor(t, mcpapi.Options{})
	id := open(t, url, "alice")
	req, err := http.NewRequest("POST", url, strings.NewReader(pingCall))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer alice")
	req.Header.Set("Mcp-Session-Id", id)
	req.Header.Set("Mcp-Protocol-Version", "1999-01-01")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), "Unsupported protocol version") {
		t.Fatalf("protocol version 1999-01-01: %d %s, want 400", resp.StatusCode, b)
	}
}
