package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/harnest/harnest/eval"
	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/internal/testutil/fakemodel"
	junit "github.com/joshdk/go-junit"
)

// harnest eval, as a CI runs it: the built binary over every example's
// evals.yaml (the model agents' endpoint and the judge are a fake model),
// and a cases file with failing cases that must fail the run. The JUnit
// XML is read with a JUnit parser (github.com/joshdk/go-junit).

// evalTimeout bounds one harnest eval run (the node examples start their
// workers first).
const evalTimeout = 4 * time.Minute

// runEvalBinary runs "harnest eval args..." with env added.
func runEvalBinary(t *testing.T, env []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), evalTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, harnestBin, append([]string{"eval"}, args...)...)
	cmd.Env = childEnv(env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		t.Fatalf("harnest eval %v: %v\n%s", args, err, errb.String())
	}
	return cmd.ProcessState.ExitCode(), out.String(), errb.String()
}

// startFakeAgentModel is the model of the chat and assistant examples and
// the judge: it answers from the last message, as a scripted model would.
func startFakeAgentModel(t *testing.T) *fakemodel.Server {
	fake := fakemodel.Start(t)
	fake.SetDefault(fakeAgentReply)
	return fake
}

var rememberedName = regexp.MustCompile(`My name is (\w+)`)

func fakeAgentReply(req fakemodel.Request) fakemodel.Reply {
	msgs := req.Messages
	if len(msgs) == 0 {
		return fakemodel.Reply{Text: "ok"}
	}
	if strings.HasPrefix(msgs[0].Text(), "You grade one answer") { // the judge
		graded := msgs[len(msgs)-1].Text()
		_, answer, _ := strings.Cut(graded, "The answer to grade:")
		if strings.Contains(answer, "Paris") {
			return fakemodel.Reply{Text: `{"score": 0.9, "reason": "It names Paris."}`}
		}
		return fakemodel.Reply{Text: `{"score": 0.1, "reason": "It does not name Paris."}`}
	}
	last := msgs[len(msgs)-1]
	if last.Role == "tool" {
		return fakemodel.Reply{Text: "Done: " + last.Text()}
	}
	text := last.Text()
	switch {
	case strings.Contains(text, "capital of France"):
		return fakemodel.Reply{Text: "The capital of France is Paris."}
	case strings.Contains(text, "Tokyo"):
		return fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "call_now", Name: "clock__now", Arguments: `{"timeZone":"Asia/Tokyo"}`}}}
	case strings.HasPrefix(text, "Remember that "):
		note, _ := json.Marshal(map[string]string{"note": strings.TrimPrefix(text, "Remember that ")})
		return fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "call_note", Name: "save_note", Arguments: string(note)}}}
	case strings.Contains(text, "What is my name"):
		for _, m := range msgs {
			if n := rememberedName.FindStringSubmatch(m.Text()); n != nil {
				return fakemodel.Reply{Text: "Your name is " + n[1] + "."}
			}
		}
		return fakemodel.Reply{Text: "I do not know your name."}
	}
	return fakemodel.Reply{Text: "Hello! " + text}
}

// exampleNeeds is what an example's agent needs beyond go and python3:
// node, and the npm packages of adapters/node.
var exampleNeeds = map[string][]string{
	"worker-node":  {},
	"adk-js":       {"@google/adk"},
	"langgraph-js": {"@langchain/langgraph", "@langchain/core"},
}

// TestEvalExamples runs every example's cases with the built binary; each
// run must pass (exit 0) and write JUnit XML in which every case passed.
func TestEvalExamples(t *testing.T) {
	files, err := filepath.Glob("../../examples/*/evals.yaml")
	if err != nil || len(files) < 8 {
		t.Fatalf("example cases: %v %v", files, err)
	}
	fake := startFakeAgentModel(t)
	env := []string{"HARNEST_MODEL_URL=" + fake.URL, "HARNEST_MODEL=fake-model", "OPENAI_API_KEY=", "HARNEST_FAKE_MODEL=1"}
	for _, file := range files {
		folder := filepath.Dir(file)
		name := filepath.Base(folder)
		t.Run(name, func(t *testing.T) {
			if pkgs, ok := exampleNeeds[name]; ok {
				testutil.RequireNode(t, filepath.Join("..", "..", "adapters", "node"), pkgs...)
			}
			if name == "assistant" {
				folder = assistantWithBuiltClock(t)
			}
			cases, err := eval.Load(file)
			if err != nil {
				t.Fatal(err)
			}
			out := t.TempDir()
			junitFile, jsonFile := filepath.Join(out, "eval.xml"), filepath.Join(out, "eval.json")
			code, stdout, stderr := runEvalBinary(t, env, folder, file, "--junit", junitFile, "--json", jsonFile)
			if code != 0 {
				t.Fatalf("harnest eval %s: exit %d\n%s\n%s", name, code, stdout, stderr)
			}
			suites, err := junit.IngestFile(junitFile)
			if err != nil || len(suites) != 1 {
				t.Fatalf("JUnit XML: %v (%d suites)", err, len(suites))
			}
			if tot := suites[0].Totals; tot.Tests != len(cases.Cases) || tot.Passed != tot.Tests {
				t.Errorf("JUnit totals %+v, want all %d cases passed\n%s", tot, len(cases.Cases), stdout)
			}
			var rep eval.Report
			if b, err := os.ReadFile(jsonFile); err != nil || json.Unmarshal(b, &rep) != nil || !rep.OK || rep.Total != len(cases.Cases) {
				t.Errorf("JSON report: %v %+v", err, rep)
			}
		})
	}
}

// assistantWithBuiltClock copies examples/assistant (its note tool writes
// beside config.yaml) with its MCP clock built once instead of `go run`.
func assistantWithBuiltClock(t *testing.T) string {
	t.Helper()
	src := filepath.Join("..", "..", "examples", "assistant")
	dst := t.TempDir()
	clock := filepath.Join(dst, "mcp-clock-bin")
	build := exec.Command("go", "build", "-o", clock, "./mcp-clock")
	build.Dir = src
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build mcp-clock: %v\n%s", err, out)
	}
	for _, name := range []string{"config.yaml", "agent-card.yaml", "instructions.md", "tools/save-note.sh"} {
		data, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		if name == "config.yaml" {
			before := string(data)
			data = []byte(strings.Replace(before, "command: go\n      args: [run, ./mcp-clock]", "command: "+clock, 1))
			if string(data) == before {
				t.Fatal("examples/assistant/config.yaml no longer runs its clock with `go run ./mcp-clock`; update this test")
			}
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dst, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, name), data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// TestEvalFailingCasesFailTheRun: a cases file with failing cases makes
// harnest eval exit 1 at the default threshold (1.0) and 0 at a threshold
// the pass rate reaches; the JUnit XML names each failure. A cases file
// with mistakes exits 2 and names them.
func TestEvalFailingCasesFailTheRun(t *testing.T) {
	fake := startFakeAgentModel(t)
	env := []string{"HARNEST_EVAL_JUDGE_URL=" + fake.URL}
	out := t.TempDir()
	junitFile := filepath.Join(out, "eval.xml")
	code, stdout, stderr := runEvalBinary(t, env, helloDir, "testdata/evals/failing.yaml", "--junit", junitFile, "--quiet")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "1 passed, 3 failed of 4 cases: pass rate 25.0% (threshold 100.0%): FAILED") {
		t.Errorf("table:\n%s", stdout)
	}
	suites, err := junit.IngestFile(junitFile)
	if err != nil || len(suites) != 1 {
		t.Fatalf("JUnit XML: %v", err)
	}
	s := suites[0]
	if s.Totals.Tests != 4 || s.Totals.Passed != 1 || s.Totals.Failed != 3 {
		t.Errorf("totals %+v", s.Totals)
	}
	want := map[string]string{
		"passes":                         "",
		"fails on purpose, wrong answer": `does not contain "Goodbye"`,
		"fails on purpose, a tool the agent never calls": "call 1 (lookup) was not made",
		"fails on purpose, the judge scores it low":      "score 0.10 (threshold 0.70): It does not name Paris.",
	}
	for _, test := range s.Tests {
		w, ok := want[test.Name]
		switch {
		case !ok:
			t.Errorf("unexpected test %q", test.Name)
		case w == "" && test.Status != junit.StatusPassed:
			t.Errorf("%s: %s %s", test.Name, test.Status, test.Message)
		case w != "" && (test.Status != junit.StatusFailed || !strings.Contains(test.Message, w)):
			t.Errorf("%s: %s %q, want failed with %q", test.Name, test.Status, test.Message, w)
		}
	}

	if code, stdout, stderr := runEvalBinary(t, env, helloDir, "testdata/evals/failing.yaml", "--threshold", "0.25", "--quiet"); code != 0 {
		t.Errorf("at threshold 0.25: exit %d\n%s\n%s", code, stdout, stderr)
	}

	bad := filepath.Join(out, "bad.yaml")
	mustWrite(t, bad, "cases:\n  - name: x\n    turns: [{input: hi, expect: {regex: '('}}]\n")
	code, _, stderr = runEvalBinary(t, nil, helloDir, bad)
	if code != 2 || !strings.Contains(stderr, "cases[0].turns[0].expect.regex[0]: does not compile") {
		t.Errorf("a bad cases file: exit %d\n%s", code, stderr)
	}
}

// TestEvalKeepsLastRunOnRedis: harnest eval --redis-url keeps the run's
// summary in the store, and a replica served on that store answers it at
// GET /evals/last (what the playground's Evals view shows).
func TestEvalKeepsLastRunOnRedis(t *testing.T) {
	url := realRedis(t)
	dir := agentFolder(t, "", prefixed(t))
	cases := filepath.Join(t.TempDir(), "evals.yaml")
	mustWrite(t, cases, "cases:\n  - {name: greets, turns: [{input: hi, expect: {equals: 'Echo: hi'}}]}\n  - {name: fails, turns: [{input: hi, expect: {contains: bye}}]}\n")
	if code, stdout, stderr := runEvalBinary(t, nil, dir, cases, "--redis-url", url, "--threshold", "0.5"); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	h := startHarnest(t, dir, nil, "--redis-url", url)
	r := h.get(t, "/evals/last")
	mustStatus(t, r, http.StatusOK)
	var got eval.Summary
	if err := json.Unmarshal(r.Body, &got); err != nil {
		t.Fatal(err)
	}
	if got.Agent != "hello" || got.Total != 2 || got.Passed != 1 || !got.OK || got.Cases[1].Failure == "" {
		t.Fatalf("last run: %s", r.Body)
	}
	h.mustStop(t)
}
