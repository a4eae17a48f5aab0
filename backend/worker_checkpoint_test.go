package backend_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/harnest/harnest/backend"
	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/store"
	"github.com/harnest/harnest/store/memstore"
)

// resumingWorker is a worker that resumes: it appends each turn line it
// gets to the file $TURNS. A first attempt says "first ", checkpoints
// {"step":1}, then streams "lost " slowly (its replica is lost meanwhile);
// an attempt given the checkpoint says "second" and is done.
const resumingWorker = `
import json, os, sys, time
def send(**m):
    sys.stdout.write(json.dumps(m) + "\n"); sys.stdout.flush()
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] != "turn":
        continue
    with open(os.environ["TURNS"], "a") as f:
        f.write(line)
    i = m["id"]
    if m.get("checkpoint") == {"step": 1}:
        send(type="text", id=i, delta="second")
        send(type="done", id=i)
        continue
    send(type="text", id=i, delta="first ")
    send(type="checkpoint", id=i, value={"step": 1})
    for _ in range(50):
        send(type="text", id=i, delta="lost ")
        time.sleep(0.1)
    send(type="done", id=i)
`

// newResumingWorkers starts the resuming worker (one process) writing its
// turn lines to turns.
func newResumingWorkers(t *testing.T, turns string) *backend.Workers {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not on PATH")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "worker.py"), []byte(resumingWorker), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := backend.NewWorkers(config.ExecBackend{Command: []string{"python3", "worker.py"}, Mode: "worker", Resumes: true,
		Env: map[string]string{"TURNS": turns}}, dir, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Close() })
	return w
}

// A worker's background turn whose replica is lost after its checkpoint
// goes on on another replica from that checkpoint: the new attempt's turn
// line has attempt 2 and the checkpoint; the log is one unbroken sequence
// whose one retraction withdraws only what streamed after the checkpoint;
// receipt and transcript hold the text before the checkpoint once.
func TestWorkerTurnResumesFromItsCheckpoint(t *testing.T) {
	st := memstore.New(memstore.Options{})
	t.Cleanup(func() { _ = st.Close() })
	turns := filepath.Join(t.TempDir(), "turns")
	lost := &freezable{Store: st}
	first := startReplica(t, lost, newResumingWorkers(t, turns))
	startReplica(t, st, newResumingWorkers(t, turns))

	ctx := context.Background()
	r, err := first.StartResponse(ctx, runtime.Principal{UserID: "u"}, runtime.ResponseRequest{Input: "go", Background: true})
	if err != nil {
		t.Fatal(err)
	}
	// Once the checkpoint is recorded, the first replica stops renewing
	// its liveness: to the second, it is lost.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		j, err := st.Journal(ctx, "u", r.SessionID, r.ID)
		if err == nil && j.Sequence >= 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the checkpoint was not recorded within 10 s")
		}
	}
	lost.frozen.Store(true)

	var env runtime.Envelope
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		b, _, err := st.Receipt(ctx, "u", r.SessionID, r.ID)
		if err == nil && store.IsFinalReceipt(b) {
			if err := json.Unmarshal(b, &env); err != nil {
				t.Fatal(err)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the turn did not end within 20 s (receipt %s)", b)
		}
	}
	if env.Status != runtime.StatusCompleted || env.OutputText != "first second" {
		t.Fatalf("receipt %s %q, want completed with %q", env.Status, env.OutputText, "first second")
	}

	// The worker's turn lines: attempt 1 without a checkpoint, attempt 2 with it.
	b, err := os.ReadFile(turns)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
	if len(lines) != 2 {
		t.Fatalf("the workers got %d turn lines, want 2:\n%s", len(lines), b)
	}
	for i, want := range []struct {
		attempt    float64
		checkpoint string
	}{{1, ""}, {2, `{"step":1}`}} {
		var line map[string]any
		if err := json.Unmarshal(lines[i], &line); err != nil {
			t.Fatal(err)
		}
		checkpoint := ""
		if c, ok := line["checkpoint"]; ok {
			cb, _ := json.Marshal(c)
			checkpoint = string(cb)
		}
		if line["id"] != r.ID || line["attempt"] != want.attempt || checkpoint != want.checkpoint {
			t.Errorf("turn line %d: %s, want attempt %v and checkpoint %q", i+1, lines[i], want.attempt, want.checkpoint)
		}
	}

	// The log: unbroken, one retraction of the text after the checkpoint.
	events, err := st.EventsAfter(ctx, "u", r.SessionID, r.ID, -1, 0)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	firstText := -1
	var retraction runtime.Retraction
	for i, e := range events {
		if e.Sequence != i {
			t.Fatalf("sequence %d at %d", e.Sequence, i)
		}
		count[e.Type]++
		var ev runtime.Event
		_ = json.Unmarshal(e.JSON, &ev)
		switch {
		case e.Type == runtime.EventTextDelta && ev.Delta == "first " && firstText < 0:
			firstText = e.Sequence
		case e.Type == runtime.EventRetracted:
			retraction = *ev.Retracted
		}
	}
	if count[runtime.EventRetracted] != 1 || count[runtime.EventCompleted] != 1 {
		t.Errorf("event types %v", count)
	}
	if firstText < 0 || retraction.FromSequence != firstText+1 || retraction.Attempt != 2 ||
		!strings.HasPrefix(retraction.Text, "lost ") || strings.Contains(retraction.Text, "first") {
		t.Errorf("retraction %+v, the text before the checkpoint at %d", retraction, firstText)
	}
	msgs, err := st.Messages(ctx, "u", r.SessionID, 0, 10)
	if err != nil || len(msgs) != 2 || !strings.Contains(string(msgs[1].JSON), "first second") {
		t.Fatalf("the transcript holds %d messages (%v), want the turn once", len(msgs), err)
	}
}
