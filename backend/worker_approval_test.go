package backend_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/harnest/harnest/backend"
	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/store/memstore"
)

// answersWorker asks an approval that takes every answer, and says the
// answer line it got.
const answersWorker = `
import json, sys
def send(**m):
    sys.stdout.write(json.dumps(m) + "\n"); sys.stdout.flush()
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] != "turn":
        continue
    i = m["id"]
    send(type="approval_request", id=i, requestId="a", action="send", arguments={"to": "alice"},
         answers=["edit", "respond"], argumentsSchema={"type": "object", "properties": {"to": {"type": "string"}}, "required": ["to"]})
    ans = json.loads(sys.stdin.readline())
    send(type="text", id=i, delta=json.dumps({k: ans[k] for k in ("decision", "message", "arguments", "result") if k in ans}, sort_keys=True))
    send(type="done", id=i)
`

// A worker's approval_request that offers edit and respond, answered on
// another replica: the worker's answer line carries the edit or the
// result; a bad edit is refused and changes nothing.
func TestWorkerApprovalAnswers(t *testing.T) {
	st := memstore.New(memstore.Options{})
	t.Cleanup(func() { _ = st.Close() })
	mk := func() *backend.Workers {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "worker.py"), []byte(answersWorker), 0o644); err != nil {
			t.Fatal(err)
		}
		w, err := backend.NewWorkers(config.ExecBackend{Command: []string{"python3", "worker.py"}, Mode: "worker"}, dir, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = w.Close() })
		return w
	}
	first, second := startReplica(t, st, mk()), startReplica(t, st, mk())
	ctx := context.Background()
	u := runtime.Principal{UserID: "u"}
	for _, c := range []struct {
		answer runtime.ApprovalAnswer
		want   string
	}{
		{runtime.ApprovalAnswer{Decision: runtime.DecisionEdit, Arguments: json.RawMessage(`{"to":"bob"}`)}, `{"arguments": {"to": "bob"}, "decision": "edit"}`},
		{runtime.ApprovalAnswer{Decision: runtime.DecisionRespond, Result: json.RawMessage(`{"sent":false}`)}, `{"decision": "respond", "result": {"sent": false}}`},
	} {
		r, err := first.StartResponse(ctx, u, runtime.ResponseRequest{Input: "go"})
		if err != nil {
			t.Fatal(err)
		}
		out := r.Outcome()
		if out.Err != nil || out.Envelope.RequiredAction == nil {
			t.Fatalf("first segment: %+v", out)
		}
		a := out.Envelope.RequiredAction
		if len(a.Answers) != 4 || len(a.ArgumentsSchema) == 0 {
			t.Fatalf("required action %+v", a)
		}
		_, err = second.DecideWith(ctx, u, a.ID, runtime.ApprovalAnswer{Decision: runtime.DecisionEdit, Arguments: json.RawMessage(`{"to":1}`)})
		var e *runtime.Error
		if !errors.As(err, &e) || e.Code != runtime.CodeInvalidArguments {
			t.Fatalf("bad edit: %v", err)
		}
		answer, err := second.DecideWith(ctx, u, a.ID, c.answer)
		if err != nil || answer.Err != nil {
			t.Fatalf("answer: %v %v", err, answer.Err)
		}
		var env runtime.Envelope
		if err := json.Unmarshal(answer.Body, &env); err != nil || env.Status != runtime.StatusCompleted || env.OutputText != c.want {
			t.Fatalf("after %s: %s", c.answer.Decision, answer.Body)
		}
	}
	// A denial's message reaches the worker; the response ends denied.
	r, err := first.StartResponse(ctx, u, runtime.ResponseRequest{Input: "go"})
	if err != nil {
		t.Fatal(err)
	}
	out := r.Outcome()
	if out.Envelope.RequiredAction == nil {
		t.Fatalf("first segment: %+v", out)
	}
	answer, err := second.DecideWith(ctx, u, out.Envelope.RequiredAction.ID, runtime.ApprovalAnswer{Decision: runtime.DecisionDeny, Message: "no"})
	if err != nil || string(answer.Body) != `{"id":"`+out.Envelope.RequiredAction.ID+`","status":"denied"}` {
		t.Fatalf("denial: %s %v", answer.Body, err)
	}
}
