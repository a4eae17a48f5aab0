package toolrun

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/testutil/fakemcp"
)

// stdioServer is a config for the test binary as a stdio MCP server.
func stdioServer(name string) config.MCPServer {
	command, env := fakemcp.StdioCommand()
	return config.MCPServer{Name: name, Command: command, Env: env}
}

// qualified is fakemcp's tool names as the model sees them.
func qualified(server string, names ...string) []string {
	var out []string
	for _, n := range names {
		out = append(out, server+"__"+n)
	}
	return out
}

// checkFakeTools calls add, echo, fail and mixed of a fakemcp server.
func checkFakeTools(t *testing.T, s *Set, server string) {
	t.Helper()
	res := call(t, s, server+"__add", `{"a": 2, "b": 3}`)
	if res.IsError || string(res.Output) != `{"sum":5}` {
		t.Fatalf("add = %s (IsError %v); want {\"sum\":5}", res.Output, res.IsError)
	}
	res = call(t, s, server+"__echo", `{"text": "hi there"}`)
	if res.IsError || outputString(t, res) != "hi there" {
		t.Fatalf("echo = %s (IsError %v)", res.Output, res.IsError)
	}
	res = call(t, s, server+"__fail", `{}`)
	if !res.IsError || outputString(t, res) != "it failed" {
		t.Fatalf("fail = %s (IsError %v); want an error result \"it failed\"", res.Output, res.IsError)
	}
	res = call(t, s, server+"__mixed", ``)
	if res.IsError || outputString(t, res) != "one\ntwo\n[image: image/png]" {
		t.Fatalf("mixed = %s (IsError %v)", res.Output, res.IsError)
	}
	if err := s.Validate(server+"__add", json.RawMessage(`{"a": "two", "b": 3}`)); err == nil || !strings.Contains(err.Error(), "at /a") {
		t.Fatalf("Validate(add) = %v; want an error at /a (from the server's input schema)", err)
	}
}

func TestMCPOverStdio(t *testing.T) {
	logger, logs := newLogger()
	server := stdioServer("fake")
	server.Approval = config.ToolApproval{Tools: []string{"add"}}
	server.TimeoutSeconds = 1
	s := openSet(t, Options{
		Logger:      logger,
		Tools:       []config.Tool{{Name: "local", Exec: &config.ToolExec{Command: []string{"cat"}}}},
		MCPServers:  []config.MCPServer{server},
		ClientTools: []config.ClientTool{{Name: "on_client"}},
	})

	want := append(append([]string{"local"}, qualified("fake", fakemcp.ToolNames...)...), "on_client")
	if got := toolNames(s); !reflect.DeepEqual(got, want) {
		t.Fatalf("Tools = %q; want %q", got, want)
	}
	add, _ := s.Find("fake__add")
	echo, _ := s.Find("fake__echo")
	if add.Kind != KindMCP || add.Server != "fake" || !add.Approval || echo.Approval {
		t.Fatalf("add = %+v, echo = %+v; want MCP tools of fake, add behind an approval", add, echo)
	}
	checkFakeTools(t, s, "fake")

	res := call(t, s, "fake__slow", `{"ms": 5000}`)
	if !res.IsError || !strings.Contains(outputString(t, res), "did not answer within 1s") {
		t.Fatalf("slow = %s (IsError %v); want a timeout", res.Output, res.IsError)
	}
	if err := s.Ready(context.Background()); err != nil {
		t.Fatalf("Ready: %v", err)
	}
	eventually(t, 5*time.Second, "the server's stderr in the Debug log", func() bool {
		return contains(logs.String(), "fakemcp: serving on stdio")
	})
}

func TestMCPOverHTTPSendsHeadersAndPicksUpListChanged(t *testing.T) {
	t.Run("protocol 2025-11-25", func(t *testing.T) { testMCPOverHTTP(t, fakemcp.StartHTTP(t)) })
	t.Run("protocol 2026-07-28 (stateless)", func(t *testing.T) { testMCPOverHTTP(t, fakemcp.StartStatelessHTTP(t)) })
}

func testMCPOverHTTP(t *testing.T, fake *fakemcp.HTTP) {
	s := openSet(t, Options{MCPServers: []config.MCPServer{{
		Name:     "web",
		URL:      fake.URL,
		Headers:  map[string]string{"Authorization": "Bearer test-token", "X-Team": "tools"},
		Approval: config.ToolApproval{All: true},
	}}})

	if got, want := toolNames(s), qualified("web", fakemcp.ToolNames...); !reflect.DeepEqual(got, want) {
		t.Fatalf("Tools = %q; want %q", got, want)
	}
	if echo, _ := s.Find("web__echo"); !echo.Approval {
		t.Fatal("approval: true does not cover every tool of the server")
	}
	checkFakeTools(t, s, "web")
	if err := s.Ready(context.Background()); err != nil {
		t.Fatalf("Ready: %v", err)
	}

	headers := fake.Headers()
	if len(headers) == 0 {
		t.Fatal("the server saw no request")
	}
	for i, h := range headers {
		if h.Get("Authorization") != "Bearer test-token" || h.Get("X-Team") != "tools" {
			t.Fatalf("request %d lacks the configured headers: %v", i, h)
		}
	}

	fake.AddTool("late")
	eventually(t, 10*time.Second, "web__late after tools/list_changed", func() bool { return hasTool(s, "web__late") })
	if res := call(t, s, "web__late", `{"text": "new"}`); res.IsError || outputString(t, res) != "new" {
		t.Fatalf("late = %s (IsError %v)", res.Output, res.IsError)
	}
}

func TestMCPServerThatCannotStart(t *testing.T) {
	logger, logs := newLogger()
	s := openSet(t, Options{
		Logger:     logger,
		StartWait:  5 * time.Second,
		MCPServers: []config.MCPServer{{Name: "ghost", Command: "harnest-no-such-mcp-server"}},
	})
	if got := toolNames(s); len(got) != 0 {
		t.Fatalf("Tools = %q; want none while the server is down", got)
	}
	err := s.Ready(context.Background())
	if err == nil || !strings.Contains(err.Error(), "ghost") || !strings.Contains(err.Error(), "cannot start") {
		t.Fatalf("Ready = %v; want an error naming ghost and what failed", err)
	}
	eventually(t, 5*time.Second, "the Error log line", func() bool {
		return contains(logs.String(), "level=ERROR") && contains(logs.String(), "MCP server ghost is not available") &&
			contains(logs.String(), "not offered until it answers")
	})
	if n := strings.Count(logs.String(), "level=ERROR"); n != 1 {
		t.Fatalf("%d Error lines; want one per outage:\n%s", n, logs.String())
	}
}

func TestMCPStdioServerKilledComesBack(t *testing.T) {
	s := openSet(t, Options{MCPServers: []config.MCPServer{stdioServer("fake")}})
	pid := serverPID(t, s, "fake")
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}

	res := call(t, s, "fake__echo", `{"text": "anyone?"}`)
	if !res.IsError {
		t.Fatalf("echo on a killed server = %s; want an error result", res.Output)
	}
	if msg := outputString(t, res); !strings.Contains(msg, "MCP server fake") {
		t.Fatalf("echo on a killed server = %q; want a sentence naming the server", msg)
	}
	eventually(t, 5*time.Second, "Ready to fail", func() bool {
		err := s.Ready(context.Background())
		return err != nil && strings.Contains(err.Error(), "fake")
	})
	eventually(t, 15*time.Second, "the server to come back", func() bool {
		return s.Ready(context.Background()) == nil && hasTool(s, "fake__echo")
	})
	if res := call(t, s, "fake__echo", `{"text": "back"}`); res.IsError || outputString(t, res) != "back" {
		t.Fatalf("echo after the restart = %s (IsError %v)", res.Output, res.IsError)
	}
	if newPID := serverPID(t, s, "fake"); newPID == pid || !processGone(pid) {
		t.Fatalf("pid %d after the restart (was %d, gone %v); want a new process", newPID, pid, processGone(pid))
	}
}

func TestMCPHTTPServerStoppedComesBack(t *testing.T) {
	t.Run("protocol 2025-11-25", func(t *testing.T) { testMCPHTTPStopped(t, fakemcp.StartHTTP(t)) })
	t.Run("protocol 2026-07-28 (stateless)", func(t *testing.T) { testMCPHTTPStopped(t, fakemcp.StartStatelessHTTP(t)) })
}

func testMCPHTTPStopped(t *testing.T, fake *fakemcp.HTTP) {
	s := openSet(t, Options{MCPServers: []config.MCPServer{{Name: "web", URL: fake.URL}}})
	checkEcho := func() bool {
		res := call(t, s, "web__echo", `{"text": "ping"}`)
		return !res.IsError && outputString(t, res) == "ping"
	}
	if !checkEcho() {
		t.Fatal("echo does not work before the stop")
	}

	fake.Stop()
	res := call(t, s, "web__echo", `{"text": "anyone?"}`)
	if !res.IsError || !strings.Contains(outputString(t, res), "MCP server web") {
		t.Fatalf("echo on a stopped server = %s (IsError %v); want an error result naming the server", res.Output, res.IsError)
	}
	eventually(t, 10*time.Second, "Ready to fail", func() bool {
		err := s.Ready(context.Background())
		return err != nil && strings.Contains(err.Error(), "web")
	})

	fake.Restart()
	eventually(t, 20*time.Second, "the server to come back", func() bool {
		return s.Ready(context.Background()) == nil && hasTool(s, "web__echo")
	})
	if !checkEcho() {
		t.Fatal("echo does not work after the restart")
	}
}

func TestCloseLeavesNoProcessBehind(t *testing.T) {
	s, err := Open(context.Background(), Options{
		FolderDir:  t.TempDir(),
		MCPServers: []config.MCPServer{stdioServer("one"), stdioServer("two")},
	})
	if err != nil {
		t.Fatal(err)
	}
	pids := []int{serverPID(t, s, "one"), serverPID(t, s, "two")}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for _, pid := range pids {
		if !processGone(pid) {
			t.Fatalf("MCP server process %d still runs after Close", pid)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatalf("a second Close: %v", err)
	}
	res := call(t, s, "one__echo", `{"text": "x"}`)
	if !res.IsError {
		t.Fatalf("a call after Close = %s; want an error result", res.Output)
	}
}

func TestMCPCallReturnsTheContextError(t *testing.T) {
	s := openSet(t, Options{MCPServers: []config.MCPServer{stdioServer("fake")}})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := s.Call(ctx, "fake__slow", json.RawMessage(`{"ms": 5000}`))
	if err == nil || !errorsIs(err, ctx.Err()) {
		t.Fatalf("Call = %v; want the context's error", err)
	}
}

// serverPID asks a fakemcp server for its process ID.
func serverPID(t *testing.T, s *Set, server string) int {
	t.Helper()
	res := call(t, s, server+"__pid", `{}`)
	var out fakemcp.PIDResult
	if res.IsError || json.Unmarshal(res.Output, &out) != nil || out.PID == 0 {
		t.Fatalf("pid = %s (IsError %v)", res.Output, res.IsError)
	}
	return out.PID
}

func TestMCPOverStdioPicksUpListChanged(t *testing.T) {
	s := openSet(t, Options{MCPServers: []config.MCPServer{stdioServer("fake")}})
	if res := call(t, s, "fake__add_tool", `{"name": "grown"}`); res.IsError {
		t.Fatalf("add_tool = %s", res.Output)
	}
	eventually(t, 10*time.Second, "fake__grown after tools/list_changed", func() bool { return hasTool(s, "fake__grown") })
	if res := call(t, s, "fake__grown", `{"text": "new"}`); res.IsError || outputString(t, res) != "new" {
		t.Fatalf("grown = %s (IsError %v)", res.Output, res.IsError)
	}
}

func TestMCPToolWithASchemaThatDoesNotCompileIsOfferedUnchecked(t *testing.T) {
	fake := fakemcp.StartHTTP(t)
	fake.Server().AddTool(&mcp.Tool{
		Name:        "odd",
		InputSchema: json.RawMessage(`{"type": "object", "properties": {"a": {"type": "strange"}}}`),
	}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "odd but fine"}}}, nil
	})
	logger, logs := newLogger()
	s := openSet(t, Options{Logger: logger, MCPServers: []config.MCPServer{{Name: "web", URL: fake.URL}}})

	if !hasTool(s, "web__odd") {
		t.Fatalf("Tools = %q; want web__odd offered", toolNames(s))
	}
	if !contains(logs.String(), "input schema does not compile") {
		t.Fatalf("no log line about the schema:\n%s", logs.String())
	}
	if err := s.Validate("web__odd", json.RawMessage(`{"a": 1}`)); err != nil {
		t.Fatalf("Validate = %v; want no schema check", err)
	}
	if err := s.Validate("web__odd", json.RawMessage(`[1]`)); err == nil {
		t.Fatal("Validate accepted arguments that are not an object")
	}
	if res := call(t, s, "web__odd", `{"a": 1}`); res.IsError || outputString(t, res) != "odd but fine" {
		t.Fatalf("odd = %s (IsError %v)", res.Output, res.IsError)
	}
}
