package toolrun

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/harnest/harnest/config"
)

// shTool is an exec tool running a sh script (the tool's program is sh;
// harnest itself never runs a shell).
func shTool(name, script string) config.Tool {
	return config.Tool{Name: name, Exec: &config.ToolExec{Command: []string{"sh", "-c", script}}}
}

func TestExecToolJSONResultAndStdinGetsTheArguments(t *testing.T) {
	s := openSet(t, Options{Tools: []config.Tool{
		{Name: "cat", Exec: &config.ToolExec{Command: []string{"cat"}}},
	}})
	res := call(t, s, "cat", `{"city": "Paris", "days": 3}`)
	if res.IsError {
		t.Fatalf("IsError; output %s", res.Output)
	}
	if string(res.Output) != `{"city":"Paris","days":3}` {
		t.Fatalf("output = %s; want the arguments back as JSON", res.Output)
	}
}

func TestExecToolTextResult(t *testing.T) {
	s := openSet(t, Options{Tools: []config.Tool{shTool("hello", "echo 'hello there'")}})
	res := call(t, s, "hello", `{}`)
	if res.IsError || outputString(t, res) != "hello there" {
		t.Fatalf("result = %s (IsError %v); want the JSON string \"hello there\"", res.Output, res.IsError)
	}
}

func TestExecToolNonZeroExitGivesStderr(t *testing.T) {
	s := openSet(t, Options{Tools: []config.Tool{shTool("broken", "echo 'no such city' >&2; exit 3")}})
	res := call(t, s, "broken", `{}`)
	want := "the tool failed (exit status 3): no such city"
	if !res.IsError || outputString(t, res) != want {
		t.Fatalf("result = %s (IsError %v); want %q", res.Output, res.IsError, want)
	}
}

func TestExecToolRunsInTheFolderOrItsDir(t *testing.T) {
	folder := t.TempDir()
	if err := os.Mkdir(filepath.Join(folder, "work"), 0o755); err != nil {
		t.Fatal(err)
	}
	s := openSet(t, Options{FolderDir: folder, Tools: []config.Tool{
		{Name: "here", Exec: &config.ToolExec{Command: []string{"pwd"}}},
		{Name: "there", Exec: &config.ToolExec{Command: []string{"pwd"}, Dir: "work"}},
	}})
	if got := outputString(t, call(t, s, "here", `{}`)); got != folder {
		t.Fatalf("here ran in %q; want %q", got, folder)
	}
	if got := outputString(t, call(t, s, "there", `{}`)); got != filepath.Join(folder, "work") {
		t.Fatalf("there ran in %q; want %q", got, filepath.Join(folder, "work"))
	}
}

func TestExecToolEnvironmentHasNoServerSecrets(t *testing.T) {
	t.Setenv("HARNEST_TEST_SECRET", "server-only-value")
	s := openSet(t, Options{Tools: []config.Tool{
		{Name: "env", Exec: &config.ToolExec{Command: []string{"env"}, Env: map[string]string{"TOOL_MODE": "test"}}},
	}})
	env := outputString(t, call(t, s, "env", `{}`))
	if strings.Contains(env, "HARNEST_TEST_SECRET") || strings.Contains(env, "server-only-value") {
		t.Fatalf("the tool saw the server's secret:\n%s", env)
	}
	if !strings.Contains(env, "TOOL_MODE=test") || !strings.Contains(env, "PATH=") {
		t.Fatalf("the tool's environment lacks PATH or its own variable:\n%s", env)
	}
}

func TestExecToolTimeoutKillsTheProcessGroup(t *testing.T) {
	folder := t.TempDir()
	s := openSet(t, Options{FolderDir: folder, Tools: []config.Tool{{
		Name: "hang",
		Exec: &config.ToolExec{
			Command:        []string{"sh", "-c", "sleep 60 & echo $! > child.pid; wait"},
			TimeoutSeconds: 1,
		},
	}}})
	res := call(t, s, "hang", `{}`)
	if !res.IsError || !strings.Contains(outputString(t, res), "did not finish within 1s") {
		t.Fatalf("result = %s (IsError %v); want a timeout", res.Output, res.IsError)
	}
	raw, err := os.ReadFile(filepath.Join(folder, "child.pid"))
	if err != nil {
		t.Fatalf("the tool did not record its child: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, 5*time.Second, "the child sleep to be gone", func() bool { return processGone(pid) })
}

func TestExecToolCancelReturnsTheContextError(t *testing.T) {
	s := openSet(t, Options{Tools: []config.Tool{shTool("hang", "sleep 60")}})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := s.Call(ctx, "hang", json.RawMessage(`{}`))
	if err == nil || !errorsIs(err, ctx.Err()) {
		t.Fatalf("Call = %v; want the context's error", err)
	}
}

func TestExecToolOutputTooLarge(t *testing.T) {
	s := openSet(t, Options{Tools: []config.Tool{shTool("flood", "yes 'a line of output'")}})
	res := call(t, s, "flood", `{}`)
	if !res.IsError || !strings.Contains(outputString(t, res), "too much") {
		t.Fatalf("result = %.200s (IsError %v); want a too-much-output error", res.Output, res.IsError)
	}
}

func TestExecToolProgramNotFound(t *testing.T) {
	s := openSet(t, Options{Tools: []config.Tool{
		{Name: "ghost", Exec: &config.ToolExec{Command: []string{"harnest-no-such-program"}}},
	}})
	res := call(t, s, "ghost", `{}`)
	if !res.IsError || !strings.Contains(outputString(t, res), "not found") {
		t.Fatalf("result = %s (IsError %v); want a not-found error", res.Output, res.IsError)
	}
}

// processGone reports whether pid no longer runs (gone, or a zombie that
// nobody reaped yet).
func processGone(pid int) bool {
	if err := syscall.Kill(pid, 0); err == syscall.ESRCH {
		return true
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	// The state follows the command name in parentheses.
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	return len(fields) > 0 && fields[0] == "Z"
}
