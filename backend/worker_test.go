package backend

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harnest/harnest/internal/testutil"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/runtime"
)

// syncBuffer is a log sink the test reads while the server writes.
type syncBuffer = testutil.SyncBuffer

// testLogger logs everything, Debug included, into a buffer.
func testLogger() (*slog.Logger, *syncBuffer) {
	buf := &syncBuffer{}
	return slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug})), buf
}

// waitFor polls cond for up to d; it reports whether cond became true.
func waitFor(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// exampleLang is one of the example workers in examples/.
type exampleLang struct {
	name    string // the folder is examples/worker-<name>
	program string
	script  string
}

var exampleLangs = []exampleLang{
	{"python", "python3", "worker.py"},
	{"node", "node", "worker.js"},
}

// newExampleWorkers starts n workers of an example and closes them when the
// test ends. It skips the test if the language is not installed.
func newExampleWorkers(t testing.TB, lang exampleLang, n int, logger *slog.Logger) *Workers {
	t.Helper()
	if _, err := exec.LookPath(lang.program); err != nil {
		t.Skipf("%s is not on PATH", lang.program)
	}
	w, err := NewWorkers(config.ExecBackend{
		Command: []string{lang.program, lang.script}, Mode: "worker", Workers: n,
	}, filepath.Join("..", "examples", "worker-"+lang.name), logger)
	if err != nil {
		t.Fatalf("NewWorkers: %v", err)
	}
	t.Cleanup(func() { _ = w.Close() })
	return w
}

// workerPIDs lists the pids of the pool's running processes.
func workerPIDs(w *Workers) []int {
	w.mu.Lock()
	defer w.mu.Unlock()
	var pids []int
	for p := range w.procs {
		pids = append(pids, p.pid)
	}
	slices.Sort(pids)
	return pids
}

// fakeRuntime plays the runtime's side of approvals and client tools.
type fakeRuntime struct {
	mu        sync.Mutex
	approvals []runtime.ApprovalRequest
	tools     []runtime.ClientToolRequest

	approve func(ctx context.Context, req runtime.ApprovalRequest) error
	tool    func(ctx context.Context, req runtime.ClientToolRequest) (json.RawMessage, error)
}

// turn is a turn whose Request functions are the fake's.
func (f *fakeRuntime) turn(id, input string) *runtime.Turn {
	return &runtime.Turn{
		ResponseID: id, SessionID: "sess_1", UserID: "user_1", Input: input,
		Content: []runtime.ContentInput{{Type: "text", Text: input}},
		State:   map[string]json.RawMessage{"turns": json.RawMessage("2")},
		RequestApproval: func(ctx context.Context, req runtime.ApprovalRequest) error {
			f.mu.Lock()
			f.approvals = append(f.approvals, req)
			approve := f.approve
			f.mu.Unlock()
			if approve == nil {
				return nil
			}
			return approve(ctx, req)
		},
		RequestClientTool: func(ctx context.Context, req runtime.ClientToolRequest) (json.RawMessage, error) {
			f.mu.Lock()
			f.tools = append(f.tools, req)
			tool := f.tool
			f.mu.Unlock()
			if tool == nil {
				return json.RawMessage(`"Paris"`), nil
			}
			return tool(ctx, req)
		},
	}
}

// runWorker runs one turn, bounded to a minute.
func runWorker(w *Workers, turn *runtime.Turn) ([]runtime.Event, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var events safeEvents
	err := w.Run(ctx, turn, events.emit)
	events.mu.Lock()
	defer events.mu.Unlock()
	return events.events, err
}

// ofType returns the events of one type.
func ofType(events []runtime.Event, typ string) []runtime.Event {
	var out []runtime.Event
	for _, e := range events {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

func TestExampleWorkers(t *testing.T) {
	for _, lang := range exampleLangs {
		t.Run(lang.name, func(t *testing.T) {
			t.Parallel()
			logger, logs := testLogger()
			w := newExampleWorkers(t, lang, 1, logger)
			pids := workerPIDs(w)
			if len(pids) != 1 {
				t.Fatalf("pool runs %v, want one process", pids)
			}

			t.Run("streaming", func(t *testing.T) {
				f := &fakeRuntime{}
				events, err := runWorker(w, f.turn("resp_stream", "hello there, brave new world"))
				if err != nil {
					t.Fatalf("Run: %v", err)
				}
				if got, want := textOf(events), "You said: hello there, brave new world"; got != want {
					t.Errorf("answer is %q, want %q", got, want)
				}
				if n := len(ofType(events, runtime.EventTextDelta)); n < 2 {
					t.Errorf("answer came in %d deltas, want it streamed in several", n)
				}
				if th := ofType(events, runtime.EventThinkingDelta); len(th) != 1 || th[0].Delta == "" {
					t.Errorf("thinking events are %+v, want one", th)
				}
				st := ofType(events, runtime.EventStateDelta)
				if len(st) != 1 || string(st[0].StateDelta["turns"]) != "3" {
					t.Errorf("state events are %+v, want turns 3 (the state had 2)", st)
				}
				md := ofType(events, runtime.EventAgentMetadata)
				if len(md) != 1 || md[0].Framework != "example-worker-"+lang.name {
					t.Errorf("metadata events are %+v", md)
				}
				if len(f.approvals)+len(f.tools) != 0 {
					t.Errorf("a plain turn made requests: %+v %+v", f.approvals, f.tools)
				}
			})

			t.Run("tool", func(t *testing.T) {
				events, err := runWorker(w, (&fakeRuntime{}).turn("resp_tool", "use a tool please"))
				if err != nil {
					t.Fatalf("Run: %v", err)
				}
				calls, results := ofType(events, runtime.EventToolCall), ofType(events, runtime.EventToolResult)
				if len(calls) != 1 || len(results) != 1 {
					t.Fatalf("got %d tool calls and %d results, want one each", len(calls), len(results))
				}
				if calls[0].Name != "lookup" || calls[0].ID == "" || string(calls[0].Arguments) != `{"query":"use a tool please"}` {
					t.Errorf("tool call is %+v (arguments %s)", calls[0], calls[0].Arguments)
				}
				if results[0].CallID != calls[0].ID || results[0].Name != "lookup" || string(results[0].Output) != `{"entries":3}` {
					t.Errorf("tool result is %+v (output %s)", results[0], results[0].Output)
				}
				if !strings.Contains(textOf(events), "found 3 entries") {
					t.Errorf("answer %q does not use the tool", textOf(events))
				}
			})

			t.Run("approve", func(t *testing.T) {
				f := &fakeRuntime{}
				events, err := runWorker(w, f.turn("resp_approve", "approve this"))
				if err != nil {
					t.Fatalf("Run: %v", err)
				}
				if len(f.approvals) != 1 {
					t.Fatalf("%d approval requests, want 1", len(f.approvals))
				}
				a := f.approvals[0]
				if a.Action != "send_reply" || a.Message == "" || string(a.Arguments) != `{"text":"approve this"}` {
					t.Errorf("approval request is %+v (arguments %s)", a, a.Arguments)
				}
				if got := textOf(events); got != "You said: approve this" {
					t.Errorf("answer is %q", got)
				}
			})

			for _, refusal := range []error{runtime.ErrApprovalDenied, runtime.ErrApprovalExpired} {
				t.Run("refused "+refusal.Error(), func(t *testing.T) {
					f := &fakeRuntime{approve: func(context.Context, runtime.ApprovalRequest) error { return refusal }}
					events, err := runWorker(w, f.turn("resp_refuse", "approve this"))
					if !errors.Is(err, refusal) {
						t.Errorf("Run returned %v, want %v", err, refusal)
					}
					if got := textOf(events); got != "" {
						t.Errorf("a refused turn answered %q", got)
					}
				})
			}

			t.Run("client tool", func(t *testing.T) {
				f := &fakeRuntime{}
				events, err := runWorker(w, f.turn("resp_ask", "ask where I am"))
				if err != nil {
					t.Fatalf("Run: %v", err)
				}
				if len(f.tools) != 1 || f.tools[0].Name != "get_location" || string(f.tools[0].Arguments) != `{}` {
					t.Errorf("client tool requests are %+v", f.tools)
				}
				if got := textOf(events); !strings.HasSuffix(got, "You are in Paris.") {
					t.Errorf("answer is %q, want it to end with the tool's output", got)
				}

				f.tool = func(context.Context, runtime.ClientToolRequest) (json.RawMessage, error) {
					return nil, runtime.ErrClientToolFailed
				}
				events, err = runWorker(w, f.turn("resp_ask2", "ask again"))
				if err != nil {
					t.Fatalf("Run: %v", err)
				}
				if got := textOf(events); !strings.Contains(got, "could not find out") {
					t.Errorf("answer is %q, want the worker to handle the failed tool", got)
				}
			})

			t.Run("cancel mid-stream", func(t *testing.T) {
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				first := make(chan struct{})
				var once sync.Once
				emit := func(e runtime.Event) error {
					if e.Type == runtime.EventTextDelta {
						once.Do(func() { close(first) })
					}
					return nil
				}
				input := "slow " + strings.Repeat("word ", 60)
				done := make(chan error, 1)
				go func() { done <- w.Run(ctx, (&fakeRuntime{}).turn("resp_cancel", input), emit) }()
				select {
				case <-first:
				case err := <-done:
					t.Fatalf("Run ended (%v) before any text", err)
				case <-time.After(30 * time.Second):
					t.Fatal("no text within 30s")
				}
				cancel()
				start := time.Now()
				select {
				case err := <-done:
					if !errors.Is(err, context.Canceled) {
						t.Errorf("Run returned %v, want context.Canceled", err)
					}
				case <-time.After(10 * time.Second):
					t.Fatal("Run did not return after cancellation")
				}
				if d := time.Since(start); d > time.Second {
					t.Errorf("Run took %s to return after cancellation", d)
				}
				if !waitFor(20*time.Second, func() bool { return strings.Contains(logs.String(), "cancelled resp_cancel") }) {
					t.Errorf("the worker did not report the cancel; log:\n%s", logs.String())
				}
			})

			t.Run("cancel during approval", func(t *testing.T) {
				asked := make(chan struct{})
				f := &fakeRuntime{approve: func(ctx context.Context, _ runtime.ApprovalRequest) error {
					close(asked)
					<-ctx.Done()
					return ctx.Err()
				}}
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				done := make(chan error, 1)
				go func() {
					done <- w.Run(ctx, f.turn("resp_wait", "approve later"), func(runtime.Event) error { return nil })
				}()
				select {
				case <-asked:
				case err := <-done:
					t.Fatalf("Run ended (%v) before asking", err)
				case <-time.After(30 * time.Second):
					t.Fatal("no approval request within 30s")
				}
				cancel()
				select {
				case err := <-done:
					if !errors.Is(err, context.Canceled) {
						t.Errorf("Run returned %v, want context.Canceled", err)
					}
				case <-time.After(10 * time.Second):
					t.Fatal("Run did not return after cancellation")
				}
				if !waitFor(20*time.Second, func() bool { return strings.Contains(logs.String(), "cancelled resp_wait") }) {
					t.Errorf("the worker did not report the cancel; log:\n%s", logs.String())
				}
			})

			t.Run("sequential turns", func(t *testing.T) {
				for i := range 5 {
					id := "resp_seq_" + strconv.Itoa(i)
					events, err := runWorker(w, (&fakeRuntime{}).turn(id, "turn "+strconv.Itoa(i)))
					if err != nil {
						t.Fatalf("turn %d: %v", i, err)
					}
					if got, want := textOf(events), "You said: turn "+strconv.Itoa(i); got != want {
						t.Errorf("turn %d answered %q, want %q", i, got, want)
					}
				}
			})

			// Every turn above, cancelled ones included, ran on the same
			// process: nothing made the worker restart.
			if got := workerPIDs(w); !slices.Equal(got, pids) {
				t.Errorf("pool runs %v, want the same process %v throughout", got, pids)
			}
		})
	}
}

func TestWorkersRunInParallel(t *testing.T) {
	for _, lang := range exampleLangs {
		t.Run(lang.name, func(t *testing.T) {
			t.Parallel()
			w := newExampleWorkers(t, lang, 2, nil)
			if n := len(workerPIDs(w)); n != 2 {
				t.Fatalf("pool runs %d processes, want 2", n)
			}
			// Each turn's approval waits until both turns asked: that only
			// happens if two workers run them at the same time.
			var arrived atomic.Int32
			both := make(chan struct{})
			f := &fakeRuntime{approve: func(ctx context.Context, _ runtime.ApprovalRequest) error {
				if arrived.Add(1) == 2 {
					close(both)
				}
				select {
				case <-both:
					return nil
				case <-time.After(30 * time.Second):
					return errors.New("the other turn never asked: turns did not run in parallel")
				}
			}}
			errs := make(chan error, 2)
			texts := make(chan string, 2)
			for i := range 2 {
				go func() {
					events, err := runWorker(w, f.turn("resp_par_"+strconv.Itoa(i), "approve "+strconv.Itoa(i)))
					errs <- err
					texts <- textOf(events)
				}()
			}
			for range 2 {
				if err := <-errs; err != nil {
					t.Errorf("Run: %v", err)
				}
				if got := <-texts; !strings.HasPrefix(got, "You said: approve ") {
					t.Errorf("answer is %q", got)
				}
			}
		})
	}
}

func TestWorkersQueueTurns(t *testing.T) {
	w := newExampleWorkers(t, exampleLangs[0], 1, nil)
	release := make(chan struct{})
	asked := make(chan struct{})
	blocking := &fakeRuntime{approve: func(ctx context.Context, _ runtime.ApprovalRequest) error {
		close(asked)
		select {
		case <-release:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}}
	first := make(chan error, 1)
	go func() {
		_, err := runWorker(w, blocking.turn("resp_q1", "approve me"))
		first <- err
	}()
	select {
	case <-asked:
	case <-time.After(30 * time.Second):
		t.Fatal("first turn did not ask for approval")
	}

	// The only worker is busy: a turn waits, and gives up with its context.
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := w.Run(ctx, (&fakeRuntime{}).turn("resp_q2", "queued"), func(runtime.Event) error { return nil })
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("queued Run returned %v, want context.DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("queued Run took %s to give up", d)
	}

	// Another waits until the first is done, then runs.
	second := make(chan error, 1)
	var secondText atomic.Value
	go func() {
		events, err := runWorker(w, (&fakeRuntime{}).turn("resp_q3", "next in line"))
		secondText.Store(textOf(events))
		second <- err
	}()
	select {
	case err := <-second:
		t.Fatalf("second turn ran (%v) while the only worker was busy", err)
	case <-time.After(200 * time.Millisecond):
	}
	close(release)
	for _, ch := range []chan error{first, second} {
		select {
		case err := <-ch:
			if err != nil {
				t.Errorf("Run: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("turn did not finish")
		}
	}
	if got := secondText.Load(); got != "You said: next in line" {
		t.Errorf("queued turn answered %q", got)
	}
}

// faultyWorker is a Python worker for the tests, driven by the input text:
// it misbehaves in the way the input names, and answers "ok <input>"
// otherwise. It writes "stderr-secret" to stderr on every turn.
const faultyWorker = `
import json, os, subprocess, sys, time

def send(m):
    sys.stdout.write(json.dumps(m) + "\n")
    sys.stdout.flush()

for line in sys.stdin:
    m = json.loads(line)
    if m["type"] != "turn":
        continue
    i, text = m["id"], m["input"]
    sys.stderr.write("stderr-secret " + text + "\n")
    sys.stderr.flush()
    if text == "malformed":
        sys.stdout.write("this is not json\n"); sys.stdout.flush()
    elif text == "unknown":
        send({"type": "bogus", "id": i})
    elif text == "noid":
        send({"type": "text", "delta": "x"})
    elif text == "otherid":
        send({"type": "text", "id": "resp_other", "delta": "x"})
    elif text == "badtype":
        send({"type": "text", "id": i, "delta": 5})
    elif text == "crash":
        send({"type": "text", "id": i, "delta": "partial"})
        sys.exit(3)
    elif text == "close":
        os.close(1)
        time.sleep(100)
    elif text == "hang":
        time.sleep(100)
    elif text == "error":
        send({"type": "error", "id": i, "message": "stderr-secret failure"})
    elif text == "ignorecancel":
        send({"type": "text", "id": i, "delta": "started"})
        time.sleep(100)
    elif text == "pid":
        send({"type": "text", "id": i, "delta": str(os.getpid())})
        send({"type": "done", "id": i})
    elif text == "child":
        child = subprocess.Popen(["sleep", "100"])
        send({"type": "text", "id": i, "delta": str(child.pid)})
        send({"type": "done", "id": i})
    elif text == "env":
        env = {k: os.environ.get(k) for k in ("HARNEST_WORKER", "GREETING", "HARNEST_TEST_SERVER_SECRET")}
        send({"type": "text", "id": i, "delta": json.dumps(env, sort_keys=True)})
        send({"type": "done", "id": i})
    elif text == "echo":
        send({"type": "text", "id": i, "delta": line.strip()})
        send({"type": "done", "id": i})
    elif text == "noisy":
        sys.stderr.write("x" * 5000 + "\n")
        for n in range(200):
            sys.stderr.write("noise %d\n" % n)
        sys.stderr.flush()
        send({"type": "text", "id": i, "delta": "ok"})
        send({"type": "done", "id": i})
    else:
        send({"type": "text", "id": i, "delta": "ok " + text})
        send({"type": "done", "id": i})
`

// newFaultyWorkers starts n faulty workers (see faultyWorker).
func newFaultyWorkers(t testing.TB, cfg config.ExecBackend, logger *slog.Logger) *Workers {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not on PATH")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "worker.py"), []byte(faultyWorker), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg.Command = []string{"python3", "worker.py"}
	cfg.Mode = "worker"
	w, err := NewWorkers(cfg, dir, logger)
	if err != nil {
		t.Fatalf("NewWorkers: %v", err)
	}
	t.Cleanup(func() { _ = w.Close() })
	return w
}

// faultyPID asks a faulty worker for its pid.
func faultyPID(t *testing.T, w *Workers) int {
	t.Helper()
	events, err := runWorker(w, &runtime.Turn{ResponseID: "resp_pid", Input: "pid"})
	if err != nil {
		t.Fatalf("pid turn: %v", err)
	}
	pid, err := strconv.Atoi(textOf(events))
	if err != nil {
		t.Fatalf("pid turn answered %q", textOf(events))
	}
	return pid
}

func TestWorkerFaultsFailOnlyThatTurn(t *testing.T) {
	cases := []struct {
		input     string
		want      string // in the error
		kind      error
		restarted bool
		timeout   int
	}{
		{input: "malformed", want: "worker sent an invalid line: not a JSON object", kind: runtime.ErrAgentFailed, restarted: true},
		{input: "unknown", want: `worker sent an invalid line: unknown type "bogus"`, kind: runtime.ErrAgentFailed, restarted: true},
		{input: "noid", want: `worker sent an invalid line: field "id" is missing`, kind: runtime.ErrAgentFailed, restarted: true},
		{input: "badtype", want: `worker sent an invalid line: text: field "delta" must be a string`, kind: runtime.ErrAgentFailed, restarted: true},
		{input: "otherid", want: "worker sent a text line for another turn", kind: runtime.ErrAgentFailed, restarted: true},
		{input: "crash", want: "the worker exited mid-turn (exit status 3)", kind: runtime.ErrAgentFailed, restarted: true},
		{input: "close", want: "the worker closed its output mid-turn", kind: runtime.ErrAgentFailed, restarted: true},
		// The next turn, on a fresh process, must start within the same
		// time limit: 1 s was too short for a process started under a busy
		// -race run.
		{input: "hang", want: "the worker sent nothing for 4s", kind: runtime.ErrTimeout, restarted: true, timeout: 4},
		{input: "error", want: "the worker reported an error", kind: runtime.ErrAgentFailed, restarted: false},
	}
	for _, c := range cases {
		t.Run(c.input, func(t *testing.T) {
			t.Parallel()
			logger, logs := testLogger()
			w := newFaultyWorkers(t, config.ExecBackend{TimeoutSeconds: c.timeout}, logger)
			before := faultyPID(t, w)

			start := time.Now()
			events, err := runWorker(w, &runtime.Turn{ResponseID: "resp_bad", Input: c.input})
			if err == nil {
				t.Fatalf("Run succeeded, want it to fail with %q", c.want)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error is %q, want it to contain %q", err, c.want)
			}
			if !errors.Is(err, c.kind) {
				t.Errorf("error %v is not %v", err, c.kind)
			}
			if strings.Contains(err.Error(), "secret") {
				t.Errorf("error %q holds what the worker wrote to stderr", err)
			}
			if c.timeout > 0 && time.Since(start) > 15*time.Second {
				t.Errorf("the hung turn took %s to fail", time.Since(start))
			}
			if c.input == "crash" && textOf(events) != "partial" {
				t.Errorf("crash turn emitted %q, want what came before the crash", textOf(events))
			}

			// The next turn works, on a new process only if the old one
			// was broken.
			events, err = runWorker(w, &runtime.Turn{ResponseID: "resp_next", Input: "fine"})
			if err != nil || textOf(events) != "ok fine" {
				t.Fatalf("next turn: %q, %v", textOf(events), err)
			}
			after := faultyPID(t, w)
			if c.restarted {
				if after == before {
					t.Errorf("worker %d was not restarted", before)
				}
				if !waitFor(10*time.Second, func() bool { return processGone(before) }) {
					t.Errorf("broken worker %d still runs", before)
				}
			} else if after != before {
				t.Errorf("worker was restarted (%d, then %d), want it kept", before, after)
			}
			if !waitFor(10*time.Second, func() bool { return strings.Contains(logs.String(), "stderr-secret "+c.input) }) {
				t.Errorf("the worker's stderr is not in the log:\n%s", logs.String())
			}
		})
	}
}

func TestWorkerIgnoringCancelIsKilled(t *testing.T) {
	w := newFaultyWorkers(t, config.ExecBackend{}, nil)
	before := faultyPID(t, w)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	emit := func(e runtime.Event) error {
		cancel() // cancel as soon as the worker started
		return nil
	}
	start := time.Now()
	err := w.Run(ctx, &runtime.Turn{ResponseID: "resp_ign", Input: "ignorecancel"}, emit)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Run returned %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Run took %s", d)
	}
	// The next turn waits for the grace period, then runs on a new worker.
	if after := faultyPID(t, w); after == before {
		t.Errorf("a worker that ignored the cancel was kept")
	}
	if !waitFor(10*time.Second, func() bool { return processGone(before) }) {
		t.Errorf("worker %d still runs", before)
	}
}

func TestWorkerEmitFailureCancelsTheTurn(t *testing.T) {
	logger, logs := testLogger()
	w := newExampleWorkers(t, exampleLangs[0], 1, logger)
	stop := errors.New("response is over")
	turn := (&fakeRuntime{}).turn("resp_emitfail", "slow "+strings.Repeat("word ", 60))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := w.Run(ctx, turn, func(runtime.Event) error { return stop })
	if !errors.Is(err, stop) {
		t.Errorf("Run returned %v, want the emit error", err)
	}
	if !waitFor(20*time.Second, func() bool { return strings.Contains(logs.String(), "cancelled resp_emitfail") }) {
		t.Errorf("the worker was not told to cancel; log:\n%s", logs.String())
	}
	if events, err := runWorker(w, (&fakeRuntime{}).turn("resp_after", "hi")); err != nil || textOf(events) != "You said: hi" {
		t.Errorf("next turn: %q, %v", textOf(events), err)
	}
}

func TestWorkerRequestsWithoutRuntimeSupport(t *testing.T) {
	w := newExampleWorkers(t, exampleLangs[0], 1, nil)
	for _, input := range []string{"approve", "ask"} {
		_, err := runWorker(w, &runtime.Turn{ResponseID: "resp_nofn", Input: input})
		if err == nil || !strings.Contains(err.Error(), "the runtime offers none") {
			t.Errorf("%s without the Turn function: %v, want a clear error", input, err)
		}
	}
	if events, err := runWorker(w, &runtime.Turn{ResponseID: "resp_ok", Input: "hi"}); err != nil || textOf(events) != "You said: hi" {
		t.Errorf("next turn: %q, %v", textOf(events), err)
	}
}

func TestWorkerRestartBacksOff(t *testing.T) {
	want := []time.Duration{100, 200, 400, 800, 1600, 3200, 5000, 5000}
	for i, w := range want {
		if got := workerBackoff(i + 1); got != w*time.Millisecond {
			t.Errorf("workerBackoff(%d) = %s, want %s", i+1, got, w*time.Millisecond)
		}
	}
	if got := workerBackoff(1000); got != workerBackoffMax {
		t.Errorf("workerBackoff(1000) = %s", got)
	}

	// A worker that crashes at once fails every turn with a clear error,
	// and the pause before each restart grows.
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not on PATH")
	}
	w, err := NewWorkers(config.ExecBackend{
		Command: []string{"python3", "-c", "import sys; sys.exit(1)"}, Mode: "worker",
	}, t.TempDir(), nil)
	if err != nil {
		t.Fatalf("NewWorkers: %v", err)
	}
	defer w.Close()
	start := time.Now()
	for i := range 3 {
		_, err := runWorker(w, &runtime.Turn{ResponseID: "resp_crash", Input: "x"})
		if err == nil || !strings.Contains(err.Error(), "exec worker: the worker exited") {
			t.Errorf("turn %d: %v, want the worker's exit", i, err)
		}
	}
	// Three failures, restarts after 100 ms and 200 ms at least (the
	// first turn may find the first process already gone: one more).
	if d := time.Since(start); d < 300*time.Millisecond {
		t.Errorf("three turns on a crashing worker took %s: no backoff", d)
	}
	s := <-w.free
	failures := s.failures
	w.free <- s
	if failures < 3 {
		t.Errorf("slot counts %d failures, want at least 3", failures)
	}
}

func TestWorkerTurnLine(t *testing.T) {
	w := newFaultyWorkers(t, config.ExecBackend{}, nil)
	var limit int
	turn := &runtime.Turn{
		ResponseID: "resp_line", SessionID: "sess_9", UserID: "user_9", Input: "echo",
		Content: []runtime.ContentInput{
			{Type: "text", Text: "echo"},
			{Type: "image", AssetID: "asset_1", MediaType: "image/png", SizeBytes: 42,
				Data: func(context.Context) ([]byte, error) { return []byte("PNG bytes"), nil }},
		},
		State:    map[string]json.RawMessage{"turns": json.RawMessage("7")},
		Metadata: json.RawMessage(`{"channel":"test"}`),
		History: func(_ context.Context, n int) ([]runtime.Message, error) {
			limit = n
			return []runtime.Message{
				{ID: "msg_1", Role: "user", Content: json.RawMessage(`"hi"`), CreatedAt: "2026-01-01T00:00:00Z", Metadata: json.RawMessage(`{}`)},
				{ID: "msg_2", Role: "assistant", Content: json.RawMessage(`"hello"`), CreatedAt: "2026-01-01T00:00:01Z", Metadata: json.RawMessage(`{}`)},
			}, nil
		},
	}
	events, err := runWorker(w, turn)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if limit != workerHistoryLimit {
		t.Errorf("History was asked for %d messages, want %d", limit, workerHistoryLimit)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(textOf(events)), &got); err != nil {
		t.Fatalf("the worker got %q: %v", textOf(events), err)
	}
	want := map[string]any{
		"type": "turn", "id": "resp_line", "sessionId": "sess_9", "userId": "user_9", "input": "echo",
		"content": []any{
			map[string]any{"type": "text", "text": "echo"},
			map[string]any{"type": "image", "assetId": "asset_1", "mediaType": "image/png", "sizeBytes": float64(42), "bytes": "UE5HIGJ5dGVz"},
		},
		"state":    map[string]any{"turns": float64(7)},
		"metadata": map[string]any{"channel": "test"},
		"history": []any{
			map[string]any{"id": "msg_1", "role": "user", "content": "hi", "createdAt": "2026-01-01T00:00:00Z", "metadata": map[string]any{}},
			map[string]any{"id": "msg_2", "role": "assistant", "content": "hello", "createdAt": "2026-01-01T00:00:01Z", "metadata": map[string]any{}},
		},
		"attempt": float64(1),
	}
	gotJSON, _ := json.Marshal(got)
	wantJSON, _ := json.Marshal(want)
	if !bytes.Equal(gotJSON, wantJSON) {
		t.Errorf("the worker got\n%s\nwant\n%s", gotJSON, wantJSON)
	}

	// Without History, state, metadata or content: empty values, never null.
	events, err = runWorker(w, &runtime.Turn{ResponseID: "resp_bare", Input: "echo"})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if want := `{"type":"turn","id":"resp_bare","sessionId":"","userId":"","input":"echo","content":[{"type":"text","text":"echo"}],"state":{},"metadata":{},"history":[],"attempt":1}`; textOf(events) != want {
		t.Errorf("the worker got\n%s\nwant\n%s", textOf(events), want)
	}

	// A history that cannot be read fails the turn before the worker sees it.
	broken := errors.New("store down")
	_, err = runWorker(w, &runtime.Turn{ResponseID: "resp_h", Input: "echo",
		History: func(context.Context, int) ([]runtime.Message, error) { return nil, broken }})
	if !errors.Is(err, broken) {
		t.Errorf("Run returned %v, want the history error", err)
	}
}

func TestWorkerEnvironment(t *testing.T) {
	t.Setenv("HARNEST_TEST_SERVER_SECRET", "do-not-leak")
	w := newFaultyWorkers(t, config.ExecBackend{
		Env: map[string]string{"GREETING": "hi", "HARNEST_WORKER": "forged"},
	}, nil)
	events, err := runWorker(w, &runtime.Turn{ResponseID: "resp_env", Input: "env"})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if got, want := textOf(events), `{"GREETING": "hi", "HARNEST_TEST_SERVER_SECRET": null, "HARNEST_WORKER": "1"}`; got != want {
		t.Errorf("environment is %s, want %s", got, want)
	}
}

func TestWorkerStderrIsBounded(t *testing.T) {
	logger, logs := testLogger()
	w := newFaultyWorkers(t, config.ExecBackend{}, logger)
	if _, err := runWorker(w, &runtime.Turn{ResponseID: "resp_noisy", Input: "noisy"}); err != nil {
		t.Fatalf("Run: %v", err)
	}
	_ = w.Close() // the count of dropped lines is logged when stderr ends
	out := logs.String()
	if n := strings.Count(out, "exec worker: worker stderr"); n > workerStderrBurst {
		t.Errorf("%d stderr lines logged, want at most %d", n, workerStderrBurst)
	}
	if !strings.Contains(out, "stderr lines not logged") {
		t.Errorf("the log does not say lines were dropped")
	}
	if strings.Contains(out, strings.Repeat("x", workerStderrLineMax+1)) {
		t.Errorf("a long stderr line was logged whole")
	}
	if !strings.Contains(out, strings.Repeat("x", 100)) {
		t.Errorf("the long stderr line is not in the log at all")
	}
}

func TestWorkersCloseKillsEverything(t *testing.T) {
	baseline := goruntime.NumGoroutine()
	w := newFaultyWorkers(t, config.ExecBackend{Workers: 3}, nil)
	events, err := runWorker(w, &runtime.Turn{ResponseID: "resp_child", Input: "child"})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	child, err := strconv.Atoi(textOf(events))
	if err != nil {
		t.Fatalf("child turn answered %q", textOf(events))
	}
	pids := workerPIDs(w)
	if len(pids) != 3 {
		t.Fatalf("pool runs %v, want 3 processes", pids)
	}

	// A turn is running on one of them when Close comes.
	running := make(chan error, 1)
	go func() {
		_, err := runWorker(w, &runtime.Turn{ResponseID: "resp_hang", Input: "hang"})
		running <- err
	}()
	time.Sleep(200 * time.Millisecond)

	if err := w.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	for _, pid := range append(pids, child) {
		if !waitFor(10*time.Second, func() bool { return processGone(pid) }) {
			t.Errorf("process %d still runs after Close", pid)
		}
	}
	if left := workerPIDs(w); len(left) != 0 {
		t.Errorf("pool still lists %v", left)
	}
	select {
	case err := <-running:
		if err == nil {
			t.Error("the running turn succeeded after Close")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the running turn did not end after Close")
	}
	_, err = runWorker(w, &runtime.Turn{ResponseID: "resp_late", Input: "x"})
	if !errors.Is(err, runtime.ErrUnavailable) {
		t.Errorf("Run after Close returned %v, want ErrUnavailable", err)
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	checkNoGoroutineLeak(t, baseline)
}

func TestNewWorkerMode(t *testing.T) {
	dir := t.TempDir()
	agent, err := New(config.Backend{Exec: &config.ExecBackend{Command: []string{"cat"}, Mode: "worker", Workers: 2}}, dir, nil)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	closer, ok := agent.(io.Closer)
	if !ok {
		t.Fatalf("New(exec worker) returned %T, which is no io.Closer", agent)
	}
	if _, ok := agent.(*Workers); !ok {
		t.Errorf("New(exec worker) returned %T", agent)
	}
	if err := closer.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if _, err := New(config.Backend{Exec: &config.ExecBackend{Command: []string{"cat"}, Mode: "daemon"}}, dir, nil); err == nil {
		t.Error("New with mode daemon succeeded")
	}
	if a, err := New(config.Backend{Exec: &config.ExecBackend{Command: []string{"cat"}, Mode: "turn"}}, dir, nil); err != nil {
		t.Errorf("New(mode turn): %v", err)
	} else if _, ok := a.(io.Closer); ok {
		t.Errorf("turn mode holds no processes but is an io.Closer")
	}
	if _, err := New(config.Backend{Exec: &config.ExecBackend{Command: []string{"no-such-program-harnest"}, Mode: "worker"}}, dir, nil); err == nil {
		t.Error("New with a missing worker program succeeded")
	}
}

func TestReadLine(t *testing.T) {
	input := "short\r\n" + "\n" + strings.Repeat("y", 30) + "\n" + "last"
	br := bufio.NewReaderSize(strings.NewReader(input), 16)
	var got []string
	for range 10 {
		line, err := readLine(br, 30)
		got = append(got, string(line))
		if err != nil {
			if err != io.EOF {
				t.Fatalf("readLine: %v", err)
			}
			break
		}
	}
	want := []string{"short", "", strings.Repeat("y", 30), "last"}
	if !slices.Equal(got, want) {
		t.Errorf("lines are %q, want %q", got, want)
	}

	for _, long := range []string{strings.Repeat("z", 31) + "\n", strings.Repeat("z", 31), strings.Repeat("z", 100) + "\n"} {
		br := bufio.NewReaderSize(strings.NewReader(long), 16)
		if _, err := readLine(br, 30); !errors.Is(err, errLineTooLong) {
			t.Errorf("readLine of %d bytes: %v, want errLineTooLong", len(long), err)
		}
	}
}
