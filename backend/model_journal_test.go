package backend_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harnest/harnest/backend"
	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/testutil/fakemodel"
	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/store"
	"github.com/harnest/harnest/store/memstore"
)

// freezable is a store whose replica stops renewing its liveness record
// once frozen: to the other replicas it looks dead, while it goes on
// running (its later writes are then fenced).
type freezable struct {
	store.Store
	frozen atomic.Bool
}

func (f *freezable) Heartbeat(ctx context.Context, replica string, ttl time.Duration, now time.Time) error {
	if f.frozen.Load() {
		return nil
	}
	return f.Store.Heartbeat(ctx, replica, ttl, now)
}

// journalModel is a model backend with two exec tools, t1 and t2, that
// append their HARNEST_CALL_ID to runs.
func journalModel(t *testing.T, url, runs string) *backend.Model {
	t.Helper()
	script := `echo "$HARNEST_CALL_ID" >> "$0"; echo '{"ok":true}'`
	tool := func(name string) config.Tool {
		return config.Tool{Name: name, Description: "Counts its runs.", Exec: &config.ToolExec{Command: []string{"/bin/sh", "-c", script, runs}}}
	}
	spec := config.Spec{Tools: []config.Tool{tool("t1"), tool("t2")}}
	spec.Backend.Model = &config.ModelBackend{BaseURL: url, Model: "m", APIKey: "k", TimeoutSeconds: 10, MaxSteps: 4}
	m, err := backend.NewModel(context.Background(), spec, "", t.TempDir(), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Close() })
	return m
}

// startReplica starts a service on st that claims lost replicas' runs
// quickly and runs them again.
func startReplica(t *testing.T, st runtime.Store, agent runtime.Agent) *runtime.Service {
	t.Helper()
	s := runtime.New(runtime.Options{Store: st, Agent: agent, Liveness: 300 * time.Millisecond, SweepInterval: 50 * time.Millisecond,
		RerunOnReplicaLoss: true, FlushDelay: time.Millisecond, Logger: slog.New(slog.DiscardHandler)})
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Bounded: a turn still waiting for an answer (a test that stops
		// at a wait) is cancelled when the grace ends.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = s.Shutdown(ctx)
	})
	return s
}

// A three-step model turn with two tools whose replica is lost during the
// second model call resumes on another replica at that step: every
// completed model call was asked once and the interrupted one at most
// twice, with the same Idempotency-Key; each tool ran once; the log is one
// unbroken sequence with one retraction (of what streamed after the last
// resume point only) and one response.completed; receipt and transcript
// hold each step once.
func TestModelTurnResumesAtTheStepInFlight(t *testing.T) {
	st := memstore.New(memstore.Options{})
	t.Cleanup(func() { _ = st.Close() }) // after the replicas stop
	runs := filepath.Join(t.TempDir(), "runs")
	fake := fakemodel.Start(t)
	lost := &freezable{Store: st}
	var asked sync.Map // step ("/model/<n>", by the tool results sent) → times asked
	var keyMu sync.Mutex
	stepKeys := map[string][]string{} // step → the Idempotency-Key of each ask
	fake.SetDefault(func(req fakemodel.Request) fakemodel.Reply {
		step := 0
		for _, m := range req.Messages {
			if m.Role == "tool" {
				step++
			}
		}
		name := fmt.Sprintf("/model/%d", step)
		keyMu.Lock()
		stepKeys[name] = append(stepKeys[name], req.Header.Get("Idempotency-Key"))
		keyMu.Unlock()
		n, _ := asked.LoadOrStore(name, new(atomic.Int64))
		times := n.(*atomic.Int64).Add(1)
		switch {
		case step == 0:
			return fakemodel.Reply{Text: "Looking it up.", ToolCalls: []fakemodel.ToolCall{{ID: "c1", Name: "t1", Arguments: "{}"}}}
		case step == 1 && times == 1:
			// The first replica dies while this step streams, slowly.
			lost.frozen.Store(true)
			return fakemodel.Reply{Text: strings.Repeat("more ", 40), ChunkDelay: 100 * time.Millisecond,
				ToolCalls: []fakemodel.ToolCall{{ID: "c2", Name: "t2", Arguments: "{}"}}}
		case step == 1:
			return fakemodel.Reply{Text: "Once more.", ToolCalls: []fakemodel.ToolCall{{ID: "c2", Name: "t2", Arguments: "{}"}}}
		default:
			return fakemodel.Reply{Text: "All done."}
		}
	})
	model := journalModel(t, fake.URL, runs)
	first := startReplica(t, lost, model)
	startReplica(t, st, model)

	r, err := first.StartResponse(context.Background(), runtime.Principal{UserID: "u"}, runtime.ResponseRequest{Input: "go", Background: true})
	if err != nil {
		t.Fatal(err)
	}
	var env runtime.Envelope
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		b, _, err := st.Receipt(context.Background(), "u", r.SessionID, r.ID)
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
	if env.Status != runtime.StatusCompleted {
		t.Fatalf("receipt %+v", env)
	}

	// The model: each completed step once, the interrupted one at most twice.
	want := map[string][2]int64{"/model/0": {1, 1}, "/model/1": {2, 2}, "/model/2": {1, 1}}
	for step, bounds := range want {
		n, ok := asked.Load(step)
		if !ok {
			t.Fatalf("step %s was never asked (asked: %v)", step, keys(&asked))
		}
		if got := n.(*atomic.Int64).Load(); got < bounds[0] || got > bounds[1] {
			t.Errorf("step %s asked %d times (asked: %v)", step, got, keys(&asked))
		}
		for _, key := range stepKeys[step] {
			if key != r.ID+step {
				t.Errorf("step %s asked with Idempotency-Key %q, want %q", step, key, r.ID+step)
			}
		}
	}
	if got := len(fake.Requests()); got != 4 {
		t.Errorf("%d model calls, want 4 (asked: %v)", got, keys(&asked))
	}
	// The tools: each once, with its call ID.
	b, err := os.ReadFile(runs)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Fields(string(b)), []string{r.ID + "/tool/0/c1", r.ID + "/tool/1/c2"}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("tool runs %v, want %v", got, want)
	}

	// The log: one unbroken sequence, one retraction after the last resume
	// point of the lost attempt, one completion.
	events, err := st.EventsAfter(context.Background(), "u", r.SessionID, r.ID, -1, 0)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	resultOfC1 := -1
	var retraction runtime.Retraction
	for i, e := range events {
		if e.Sequence != i {
			t.Fatalf("sequence %d at %d", e.Sequence, i)
		}
		count[e.Type]++
		var ev runtime.Event
		_ = json.Unmarshal(e.JSON, &ev)
		switch {
		case e.Type == runtime.EventToolResult && ev.CallID == "c1":
			resultOfC1 = e.Sequence
		case e.Type == runtime.EventRetracted:
			retraction = *ev.Retracted
		}
	}
	if count[runtime.EventRetracted] != 1 || count[runtime.EventCompleted] != 1 || count[runtime.EventCreated] != 1 ||
		count[runtime.EventToolCall] != 2 || count[runtime.EventToolResult] != 2 {
		t.Errorf("event types %v", count)
	}
	if resultOfC1 < 0 || retraction.FromSequence != resultOfC1+1 || retraction.Attempt != 2 {
		t.Errorf("retraction %+v, c1's result at %d", retraction, resultOfC1)
	}

	// Receipt and transcript: each step once.
	items := map[string]int{}
	for _, item := range env.Output {
		items[item.Type+":"+item.ID+item.CallID]++
	}
	for _, k := range []string{"tool_call:c1", "tool_result:c1", "tool_call:c2", "tool_result:c2"} {
		if items[k] != 1 {
			t.Errorf("output holds %s %d times: %v", k, items[k], items)
		}
	}
	if items["agent_metadata:"] != 3 || !strings.HasPrefix(env.OutputText, "Looking it up.") || !strings.HasSuffix(env.OutputText, "All done.") ||
		strings.Contains(env.OutputText, "more more") {
		t.Errorf("output %v, text %q", items, env.OutputText)
	}
	msgs, err := st.Messages(context.Background(), "u", r.SessionID, 0, 10)
	if err != nil || len(msgs) != 2 {
		t.Fatalf("the transcript holds %d messages (%v), want the turn once", len(msgs), err)
	}
	if n := strings.Count(string(msgs[1].JSON), `"callId":"c1"`); n != 1 {
		t.Errorf("the transcript holds c1's result %d times: %s", n, msgs[1].JSON)
	}
}

func keys(m *sync.Map) string {
	var out []string
	m.Range(func(k, v any) bool {
		out = append(out, fmt.Sprintf("%s=%d", k, v.(*atomic.Int64).Load()))
		return true
	})
	return strings.Join(out, " ")
}
