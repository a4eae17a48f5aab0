package mcpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/harnest/harnest/server/servertest"
)

// TestToolCallsAndSessions: initialize, tools/list, tools/call without a
// sessionId (a new session) and with it (the same transcript grows).
func TestToolCallsAndSessions(t *testing.T) {
	eachStore(t, setup{}, func(t *testing.T, ts *servertest.Server) {
		cs := connect(t, ts, client{})
		if got := cs.InitializeResult().ServerInfo.Name; got != "hello" {
			t.Errorf("server name %q, want hello", got)
		}
		tools, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(tools.Tools) != 1 || tools.Tools[0].Name != "hello" {
			t.Fatalf("tools/list: %+v, want the one tool hello", tools.Tools)
		}
		schema, _ := json.Marshal(tools.Tools[0].InputSchema)
		for _, want := range []string{`"message"`, `"sessionId"`, `"required":["message"]`} {
			if !bytes.Contains(schema, []byte(want)) {
				t.Errorf("input schema %s lacks %s", schema, want)
			}
		}

		first := callTool(t, cs, map[string]any{"message": "Hello there"})
		out := structured(t, first)
		if text(first) != "Echo: Hello there" || out.Text != "Echo: Hello there" || out.Status != "completed" {
			t.Fatalf("first answer: text %q, structured %+v", text(first), out)
		}
		if out.SessionID == "" || !strings.HasPrefix(out.ResponseID, "resp_") {
			t.Errorf("IDs: %+v", out)
		}
		second := structured(t, callTool(t, cs, map[string]any{"message": "Again", "sessionId": out.SessionID}))
		if second.SessionID != out.SessionID || second.Text != "Echo: Again" || second.ResponseID == out.ResponseID {
			t.Fatalf("second answer %+v, want the same session %s", second, out.SessionID)
		}
		var page struct {
			Messages []struct{ Role, Content string }
		}
		r := ts.Get("/sessions/" + out.SessionID + "/messages")
		servertest.MustStatus(t, r, http.StatusOK)
		if err := json.Unmarshal(r.Body, &page); err != nil {
			t.Fatal(err)
		}
		var said []string
		for _, m := range page.Messages {
			said = append(said, m.Role+": "+m.Content)
		}
		want := []string{"user: Hello there", "assistant: Echo: Hello there", "user: Again", "assistant: Echo: Again"}
		if strings.Join(said, "|") != strings.Join(want, "|") {
			t.Errorf("transcript %q, want %q", said, want)
		}

		// A session that does not exist is a tool error that says so.
		res := callTool(t, cs, map[string]any{"message": "Hi", "sessionId": "sess_nobody"})
		if !res.IsError || !strings.Contains(text(res), "session_not_found") {
			t.Errorf("unknown session: error %v, %q", res.IsError, text(res))
		}
	})
}

// TestProgress: a call with a progress token gets its text deltas as
// notifications/progress, in order.
func TestProgress(t *testing.T) {
	eachStore(t, setup{}, func(t *testing.T, ts *servertest.Server) {
		progress := make(chan *mcp.ProgressNotificationParams, 64)
		cs := connect(t, ts, client{progress: progress})
		params := &mcp.CallToolParams{Name: "hello", Arguments: map[string]any{"message": "one two three four five"}}
		params.SetProgressToken("tok-1")
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		res, err := cs.CallTool(ctx, params)
		if err != nil {
			t.Fatal(err)
		}
		answer := structured(t, res).Text
		var got strings.Builder
		last := 0.0
		for got.Len() < len(answer) {
			select {
			case p := <-progress:
				if p.ProgressToken != "tok-1" || p.Progress <= last {
					t.Fatalf("progress %+v after %v", p, last)
				}
				last = p.Progress
				got.WriteString(p.Message)
			case <-ctx.Done():
				t.Fatalf("progress so far %q, want %q", got.String(), answer)
			}
		}
		if got.String() != answer || last < 2 {
			t.Errorf("progress messages %q in %v notifications, want %q in several", got.String(), last, answer)
		}
	})
}

// TestAuth: no token is refused; bob can neither use alice's session nor
// her MCP session.
func TestAuth(t *testing.T) {
	eachStore(t, setup{tokens: true}, func(t *testing.T, ts *servertest.Server) {
		if _, err := dial(t, ts, client{}); err == nil {
			t.Fatal("initialize without a token succeeded")
		}
		if _, err := dial(t, ts, client{token: "not-a-token"}); err == nil {
			t.Fatal("initialize with a wrong token succeeded")
		}
		r := ts.Post("/mcp", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)
		servertest.MustStatus(t, r, http.StatusUnauthorized)

		alice := connect(t, ts, client{token: aliceToken})
		mine := structured(t, callTool(t, alice, map[string]any{"message": "secret"}))

		bob := connect(t, ts, client{token: bobToken})
		res := callTool(t, bob, map[string]any{"message": "let me in", "sessionId": mine.SessionID})
		if !res.IsError || !strings.Contains(text(res), "session_not_found") {
			t.Errorf("bob in alice's session: error %v, %q", res.IsError, text(res))
		}

		// Bob's token on alice's MCP session gets what an unknown session
		// ID gets (404), and runs nothing.
		call := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"hello","arguments":{"message":"hijack","sessionId":"` + mine.SessionID + `"}}}`
		reply := ts.As(bobToken).Do("POST", "/mcp", "application/json", []byte(call),
			"Accept", "application/json, text/event-stream", "Mcp-Session-Id", alice.ID(), "Mcp-Protocol-Version", "2025-11-25")
		unknown := ts.As(bobToken).Do("POST", "/mcp", "application/json", []byte(call),
			"Accept", "application/json, text/event-stream", "Mcp-Session-Id", "no-such-session", "Mcp-Protocol-Version", "2025-11-25")
		if reply.Status != http.StatusNotFound || unknown.Status != http.StatusNotFound || string(reply.Body) != string(unknown.Body) {
			t.Fatalf("bob on alice's MCP session: %d %s; on an unknown one: %d %s; want the same 404",
				reply.Status, reply.Body, unknown.Status, unknown.Body)
		}
		// The same request with alice's token is fine (the refusal was bob's).
		reply = ts.As(aliceToken).Do("POST", "/mcp", "application/json", []byte(call),
			"Accept", "application/json, text/event-stream", "Mcp-Session-Id", alice.ID(), "Mcp-Protocol-Version", "2025-11-25")
		if reply.Status != http.StatusOK || !bytes.Contains(reply.Body, []byte("Echo: hijack")) {
			t.Fatalf("alice on her MCP session: %d %s", reply.Status, reply.Body)
		}
		page := ts.As(aliceToken).Get("/sessions/" + mine.SessionID + "/messages")
		if n := strings.Count(string(page.Body), `"role":"user"`); n != 2 {
			t.Errorf("alice's transcript has %d user messages, want 2: %s", n, page.Body)
		}
		r = ts.As(bobToken).Get("/sessions")
		if strings.Contains(string(r.Body), mine.SessionID) {
			t.Errorf("bob sees alice's session: %s", r.Body)
		}
	})
}

// TestRuntimeErrors: a busy session is a tool error with the runtime's
// sentence and code.
func TestRuntimeErrors(t *testing.T) {
	eachStore(t, setup{echo: echoSlow}, func(t *testing.T, ts *servertest.Server) {
		r := ts.Post("/responses", `{"input":"slow","background":true}`)
		servertest.MustStatus(t, r, http.StatusOK)
		session, _ := r.JSON(t)["sessionId"].(string)
		cs := connect(t, ts, client{})
		res := callTool(t, cs, map[string]any{"message": "me too", "sessionId": session})
		if !res.IsError || !strings.Contains(text(res), "session_busy") {
			t.Errorf("busy session: error %v, %q", res.IsError, text(res))
		}
		res = callTool(t, cs, map[string]any{"message": "  "})
		if !res.IsError || !strings.Contains(text(res), "non-blank") {
			t.Errorf("blank message: error %v, %q", res.IsError, text(res))
		}
	})
}
