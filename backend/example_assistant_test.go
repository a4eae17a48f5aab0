package backend_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/testutil/fakemodel"
	"github.com/harnest/harnest/server/servertest"
)

// examples/assistant as the README serves it, with a fake endpoint in
// place of Ollama: the clock's MCP tool answers, and a note is saved only
// once a human approved it.
func TestExampleAssistant(t *testing.T) {
	dir := copyExample(t, filepath.Join("..", "examples", "assistant"))
	clock := filepath.Join(t.TempDir(), "mcp-clock")
	build := exec.Command("go", "build", "-o", clock, "./mcp-clock")
	build.Dir = filepath.Join("..", "examples", "assistant")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build mcp-clock: %v\n%s", err, out)
	}
	fake := fakemodel.Start(t)
	t.Setenv("HARNEST_MODEL_URL", fake.URL)
	ts := servertest.Start(t, "", servertest.Setup{Folder: dir, Config: func(c *config.Config) {
		// The README runs it with `go run ./mcp-clock`; the test runs the
		// same program, built once.
		c.Spec.MCPServers[0].Command, c.Spec.MCPServers[0].Args = clock, nil
	}})
	if r := ts.Get("/readyz"); r.Status != 200 {
		t.Fatalf("not ready: %s", r.Body)
	}

	fake.Script(fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "call_now", Name: "clock__now", Arguments: `{"timeZone":"Asia/Tokyo"}`}}},
		fakemodel.Reply{Text: "It is morning in Tokyo."})
	r := ts.Post("/responses", `{"input":"What time is it in Tokyo?"}`)
	servertest.MustStatus(t, r, 200)
	if got := r.JSON(t)["outputText"]; got != "It is morning in Tokyo." {
		t.Fatalf("answer %v: %s", got, r.Body)
	}
	reqs := fake.Requests()
	if !strings.Contains(reqs[0].Messages[0].Text(), "concise, friendly assistant") {
		t.Errorf("system prompt = %q", reqs[0].Messages[0].Text())
	}
	if names := strings.Join(reqs[0].ToolNames(), ","); names != "save_note,clock__days_between,clock__now" {
		t.Errorf("tools = %s", names)
	}
	last := reqs[1].Messages[len(reqs[1].Messages)-1]
	if last.Role != "tool" || !strings.Contains(last.Text(), `"timeZone":"Asia/Tokyo"`) {
		t.Errorf("the clock answered %q", last.Text())
	}

	fake.Script(fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "call_note", Name: "save_note", Arguments: `{"note":"the meeting moved to Friday"}`}}},
		fakemodel.Reply{Text: "Saved."})
	r = ts.Post("/responses", `{"input":"Remember that the meeting moved to Friday."}`)
	action, _ := r.JSON(t)["requiredAction"].(map[string]any)
	if action["type"] != "human_approval" || action["action"] != "save_note" {
		t.Fatalf("want an approval: %s", r.Body)
	}
	if _, err := os.Stat(filepath.Join(dir, "notes.jsonl")); !os.IsNotExist(err) {
		t.Fatalf("a note was saved before the approval (%v)", err)
	}
	done := ts.Post("/approvals/"+action["id"].(string), `{"decision":"approve"}`)
	servertest.MustStatus(t, done, 200)
	notes, err := os.ReadFile(filepath.Join(dir, "notes.jsonl"))
	if err != nil || string(notes) != `{"note":"the meeting moved to Friday"}`+"\n" {
		t.Fatalf("notes.jsonl = %q (%v)", notes, err)
	}
}

// copyExample copies an example folder (its top-level files and tools/)
// to a temporary folder, so that a test can write in it.
func copyExample(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	for _, sub := range []string{".", "tools"} {
		entries, err := os.ReadDir(filepath.Join(src, sub))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dst, sub), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.IsDir() {
				continue
			}
			info, _ := e.Info()
			b, err := os.ReadFile(filepath.Join(src, sub, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dst, sub, e.Name()), b, info.Mode().Perm()); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dst
}
