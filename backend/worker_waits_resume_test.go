package backend_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
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

// twoApprovalsWorker asks approval "first", says its answer, checkpoints,
// then streams slowly (its replica is lost meanwhile); resumed from the
// checkpoint, it asks approval "second" and says its answer.
const twoApprovalsWorker = `
import json, sys, time
def send(**m):
    sys.stdout.write(json.dumps(m) + "\n"); sys.stdout.flush()
def read():
    return json.loads(sys.stdin.readline())
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] != "turn":
        continue
    i = m["id"]
    if m.get("checkpoint") is None:
        send(type="approval_request", id=i, requestId="a", action="first")
        ans = read()
        send(type="text", id=i, delta="first:" + ans.get("decision", "?") + " ")
        send(type="checkpoint", id=i, value={"step": 1})
        for _ in range(50):
            send(type="text", id=i, delta="lost ")
            time.sleep(0.1)
        send(type="done", id=i)
        continue
    send(type="approval_request", id=i, requestId="b", action="second")
    ans = read()
    send(type="text", id=i, delta="second:" + ans.get("decision", "?"))
    send(type="done", id=i)
`

// A resumed worker's approval after its checkpoint must be asked of a
// human, not answered with the answer to the approval the lost attempt
// had before the checkpoint.
//
// A wait's ID counts the response's waits (runtime waitID), and a resumed
// attempt does not ask again for the waits before its resume point, so the
// runtime restores the count recorded with the last point (journal_waits.go);
// without it, "second" would run approved with the answer to "first".
func TestResumedWorkerAsksItsNextApproval(t *testing.T) {
	st := memstore.New(memstore.Options{})
	t.Cleanup(func() { _ = st.Close() })
	mk := func() *backend.Workers {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "worker.py"), []byte(twoApprovalsWorker), 0o644); err != nil {
			t.Fatal(err)
		}
		w, err := backend.NewWorkers(config.ExecBackend{Command: []string{"python3", "worker.py"}, Mode: "worker", Resumes: true}, dir, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = w.Close() })
		return w
	}
	lost := &freezable{Store: st}
	first := startReplica(t, lost, mk())
	startReplica(t, st, mk())
	ctx := context.Background()
	r, err := first.StartResponse(ctx, runtime.Principal{UserID: "u"}, runtime.ResponseRequest{Input: "go", Background: true})
	if err != nil {
		t.Fatal(err)
	}
	var approvalID string
	for deadline := time.Now().Add(10 * time.Second); approvalID == ""; time.Sleep(20 * time.Millisecond) {
		events, _ := st.EventsAfter(ctx, "u", r.SessionID, r.ID, -1, 0)
		for _, e := range events {
			if e.Type == runtime.EventApproval {
				var ev runtime.Event
				if json.Unmarshal(e.JSON, &ev) == nil && ev.Approval != nil {
					approvalID = ev.Approval.ID
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("no approval")
		}
	}
	if _, err := first.AnswerApproval(ctx, runtime.Principal{UserID: "u"}, approvalID, true); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		j, _ := st.Journal(ctx, "u", r.SessionID, r.ID)
		if j.Sequence >= 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no checkpoint")
		}
	}
	lost.frozen.Store(true)
	// The second replica claims the run and resumes it: it must then wait
	// for the second approval.
	time.Sleep(5 * time.Second)
	b, _, err := st.Receipt(ctx, "u", r.SessionID, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	var env runtime.Envelope
	if err := json.Unmarshal(b, &env); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(env.OutputText, "second:approve") || store.IsFinalReceipt(b) {
		t.Fatalf("the second approval was never asked: the first one's answer was replayed for it (%q)", env.OutputText)
	}
}
