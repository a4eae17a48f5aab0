package backend

import (
	"context"
	"testing"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/runtime"
)

// benchDeltasWorker answers each turn with 20 text deltas (a 44-character
// text) and done, all written at once: what a turn costs the server per
// streamed line, apart from the worker's own time.
const benchDeltasWorker = `
import json, sys
words = ["The ", "quick ", "brown ", "fox ", "jumps ", "over ", "the ", "lazy ", "dog", ".", " It ", "was ", "a ", "fine ", "day", ".", "", "", "", "!"]
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "turn":
        out = [json.dumps({"type": "text", "id": m["id"], "delta": w}) for w in words]
        out.append(json.dumps({"type": "done", "id": m["id"]}))
        sys.stdout.write("\n".join(out) + "\n")
        sys.stdout.flush()
`

// BenchmarkWorkerTurn20Deltas is one worker turn of 20 text lines, from
// the turn line to done, with the events collected.
func BenchmarkWorkerTurn20Deltas(b *testing.B) {
	w, err := NewWorkers(config.ExecBackend{
		Command: []string{realPython(b), "-c", benchDeltasWorker}, Mode: "worker",
	}, b.TempDir(), nil)
	if err != nil {
		b.Fatalf("NewWorkers: %v", err)
	}
	defer w.Close()
	turn := func() {
		n := 0
		err := w.Run(context.Background(), &runtime.Turn{ResponseID: "resp_01JBENCHMARK0000000000000", Input: "hello"},
			func(runtime.Event) error { n++; return nil })
		if err != nil || n != 20 {
			b.Fatalf("Run: %v, %d events", err, n)
		}
	}
	turn()
	b.ReportAllocs()
	for b.Loop() {
		turn()
	}
}
