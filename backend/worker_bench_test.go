package backend

import (
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/runtime"
)

// The two benchmarks below answer the same turn with the same Python, once
// from a long-lived worker and once from a process started for the turn:
// the difference is what worker mode saves per turn.

// benchWorker answers each turn with one text line and done.
const benchWorker = `
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "turn":
        sys.stdout.write(json.dumps({"type": "text", "id": m["id"], "delta": "You said: " + m["input"]}) + "\n"
                         + json.dumps({"type": "done", "id": m["id"]}) + "\n")
        sys.stdout.flush()
`

// benchTurnProgram is the same answer in turn mode.
const benchTurnProgram = `import sys; sys.stdout.write("You said: " + sys.stdin.read())`

// realPython is the interpreter behind python3, so that neither benchmark
// pays for a wrapper script (such as a pyenv shim) in front of it.
func realPython(b *testing.B) string {
	b.Helper()
	out, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		b.Skipf("python3 is not available: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// benchTurn runs one turn and checks its answer.
func benchTurn(b *testing.B, agent runtime.Agent) {
	var events []runtime.Event
	err := agent.Run(context.Background(), &runtime.Turn{ResponseID: "resp_bench", Input: "hello"}, collect(&events))
	if err != nil {
		b.Fatalf("Run: %v", err)
	}
	if got := textOf(events); got != "You said: hello" {
		b.Fatalf("answer is %q", got)
	}
}

func BenchmarkWorkerTurn(b *testing.B) {
	w, err := NewWorkers(config.ExecBackend{
		Command: []string{realPython(b), "-c", benchWorker}, Mode: "worker",
	}, b.TempDir(), nil)
	if err != nil {
		b.Fatalf("NewWorkers: %v", err)
	}
	defer w.Close()
	benchTurn(b, w) // the worker has started and imported json
	for b.Loop() {
		benchTurn(b, w)
	}
}

func BenchmarkTurnModeTurn(b *testing.B) {
	e, err := NewExec(config.ExecBackend{
		Command: []string{realPython(b), "-c", benchTurnProgram},
	}, b.TempDir(), nil)
	if err != nil {
		b.Fatalf("NewExec: %v", err)
	}
	for b.Loop() {
		benchTurn(b, e)
	}
}
