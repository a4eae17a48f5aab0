package backend

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/runtime"
)

// A checkpoint line carries any JSON value but null, of at most
// workerCheckpointMax bytes; anything else is refused with a clear error.
func TestDecodeCheckpointLine(t *testing.T) {
	for _, value := range []string{`{"step":1,"thread":"t"}`, `"cp-7"`, `3`, `[]`, `false`} {
		m, err := decodeWorkerLine([]byte(`{"type":"checkpoint","id":"r","value":` + value + `}`))
		if err != nil || string(m.Checkpoint) != value {
			t.Errorf("checkpoint %s: %q, %v", value, m.Checkpoint, err)
		}
		if _, ok := m.event(); ok {
			t.Errorf("checkpoint %s maps to an event", value)
		}
	}
	big := `"` + strings.Repeat("x", workerCheckpointMax) + `"`
	for line, want := range map[string]string{
		`{"type":"checkpoint","id":"r"}`:                     `checkpoint: field "value" is missing`,
		`{"type":"checkpoint","id":"r","value":null}`:        `checkpoint: field "value" is missing`,
		`{"type":"checkpoint","id":"r","value":` + big + `}`: `checkpoint: field "value" is 1048578 bytes; a checkpoint may be at most 1048576 bytes`,
		`{"type":"checkpoint","value":{}}`:                   `field "id" is missing`,
	} {
		if _, err := decodeWorkerLine([]byte(line)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("decodeWorkerLine(%.60s…) = %v, want %q", line, err, want)
		}
	}
}

// checkpointWorker checkpoints between its deltas; on input "big" its
// checkpoint is over the limit.
const checkpointWorker = `
import json, sys
def send(**m):
    sys.stdout.write(json.dumps(m) + "\n"); sys.stdout.flush()
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] != "turn":
        continue
    i = m["id"]
    send(type="text", id=i, delta="a")
    value = "x" * (2 << 20) if m["input"] == "big" else {"n": 1}
    send(type="checkpoint", id=i, value=value)
    send(type="text", id=i, delta="b")
    send(type="done", id=i)
`

// A turn that cannot run again (no journal) takes checkpoint lines and
// does nothing with them; an oversize one fails the turn, naming the limit.
func TestWorkerCheckpointLines(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not on PATH")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "worker.py"), []byte(checkpointWorker), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := NewWorkers(config.ExecBackend{Command: []string{"python3", "worker.py"}, Mode: "worker", Resumes: true}, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Close() })

	events, err := runWorker(w, &runtime.Turn{ResponseID: "resp_cp", Input: "go"})
	if err != nil || textOf(events) != "ab" || len(events) != 2 {
		t.Fatalf("turn with a checkpoint: %v, events %+v", err, events)
	}
	_, err = runWorker(w, &runtime.Turn{ResponseID: "resp_big", Input: "big"})
	if err == nil || !strings.Contains(err.Error(), "a checkpoint may be at most 1048576 bytes") {
		t.Fatalf("oversize checkpoint: %v", err)
	}
	if events, err := runWorker(w, &runtime.Turn{ResponseID: "resp_after", Input: "go"}); err != nil || textOf(events) != "ab" {
		t.Fatalf("the turn after: %v %q", err, textOf(events))
	}
}
