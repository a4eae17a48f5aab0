package backend

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/runtime"
)

// newExec builds an exec agent in a fresh folder, failing the test on error.
func newExec(t *testing.T, cfg config.ExecBackend, logger *slog.Logger) *Exec {
	t.Helper()
	agent, err := NewExec(cfg, t.TempDir(), logger)
	if err != nil {
		t.Fatalf("NewExec: %v", err)
	}
	return agent
}

// shell is the argv that runs script with /bin/sh; args become $1, $2...
func shell(script string, args ...string) []string {
	return append([]string{"sh", "-c", script, "sh"}, args...)
}

// safeEvents collects events from a Run in another goroutine.
type safeEvents struct {
	mu     sync.Mutex
	events []runtime.Event
}

func (s *safeEvents) emit(e runtime.Event) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events = append(s.events, e)
	return nil
}

func (s *safeEvents) text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return textOf(s.events)
}

func TestExecInputThroughCat(t *testing.T) {
	input := "héllo wörld ✓\nsecond line\n"
	agent := newExec(t, config.ExecBackend{Command: []string{"cat"}}, nil)
	var events []runtime.Event
	if err := agent.Run(context.Background(), &runtime.Turn{Input: input}, collect(&events)); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if got := textOf(events); got != input {
		t.Errorf("output is %q, want %q", got, input)
	}
	for _, e := range events {
		if e.Type != runtime.EventTextDelta {
			t.Errorf("got a %s event, want only text deltas", e.Type)
		}
	}
}

func TestExecStreamsWhileRunning(t *testing.T) {
	// The program prints its first line, then waits (boundedly) for a file
	// that the test creates only after it saw the first delta. So the first
	// delta must arrive while the program is still running.
	release := filepath.Join(t.TempDir(), "release")
	script := `printf 'first\n'
i=0
while [ ! -e "$1" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done
printf 'second\n'`
	agent := newExec(t, config.ExecBackend{Command: shell(script, release)}, nil)

	var events safeEvents
	first := make(chan struct{})
	var once sync.Once
	emit := func(e runtime.Event) error {
		_ = events.emit(e)
		once.Do(func() { close(first) })
		return nil
	}
	done := make(chan error, 1)
	go func() { done <- agent.Run(context.Background(), &runtime.Turn{}, emit) }()

	select {
	case <-first:
	case err := <-done:
		t.Fatalf("Run finished (%v) before any delta arrived: output is not streamed", err)
	case <-time.After(20 * time.Second):
		t.Fatal("no delta within 20s")
	}
	if got := events.text(); got != "first\n" {
		t.Errorf("before release the output is %q, want %q", got, "first\n")
	}
	if err := os.WriteFile(release, nil, 0o600); err != nil {
		t.Fatal(err)
	}

	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Run did not finish after release")
	}
	if got := events.text(); got != "first\nsecond\n" {
		t.Errorf("output is %q, want %q", got, "first\nsecond\n")
	}
}

func TestExecNonZeroExitHidesStderr(t *testing.T) {
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	agent := newExec(t, config.ExecBackend{
		Command: shell("echo partial; echo 'secret-ish text' >&2; exit 3"),
	}, logger)

	var events []runtime.Event
	err := agent.Run(context.Background(), &runtime.Turn{ResponseID: "resp_fail"}, collect(&events))
	if err == nil {
		t.Fatal("Run succeeded, want an error")
	}
	if !strings.Contains(err.Error(), "agent program exited with status 3") {
		t.Errorf("error is %q, want it to give the exit status", err)
	}
	if strings.Contains(err.Error(), "secret") {
		t.Errorf("error %q contains the program's stderr", err)
	}
	if !errors.Is(err, runtime.ErrAgentFailed) {
		t.Errorf("error %v is not runtime.ErrAgentFailed", err)
	}
	if got := textOf(events); got != "partial\n" {
		t.Errorf("output is %q, want the stdout written before the failure", got)
	}
	if !strings.Contains(logs.String(), "secret-ish text") || !strings.Contains(logs.String(), "resp_fail") {
		t.Errorf("log does not hold stderr and the response id:\n%s", logs.String())
	}
}

func TestExecEnvironmentIsMinimal(t *testing.T) {
	t.Setenv("HARNEST_TEST_SERVER_SECRET", "do-not-leak")
	agent := newExec(t, config.ExecBackend{
		Command: shell(`printf '%s|%s|%s|%s|%s' "$HARNEST_SESSION_ID" "$HARNEST_RESPONSE_ID" "$GREETING" "${HARNEST_TEST_SERVER_SECRET:-unset}" "${PATH:+path}"`),
		Env:     map[string]string{"GREETING": "hi", "HARNEST_RESPONSE_ID": "forged"},
	}, nil)
	var events []runtime.Event
	turn := &runtime.Turn{SessionID: "sess_1", ResponseID: "resp_2"}
	if err := agent.Run(context.Background(), turn, collect(&events)); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if got, want := textOf(events), "sess_1|resp_2|hi|unset|path"; got != want {
		t.Errorf("environment is %q, want %q", got, want)
	}
}

// A turn run again after its replica was lost tells the program its
// attempt; a first run says 1.
func TestExecTellsTheAttempt(t *testing.T) {
	agent := newExec(t, config.ExecBackend{
		Command: shell(`printf '%s' "$HARNEST_ATTEMPT"`),
		Env:     map[string]string{"HARNEST_ATTEMPT": "forged"},
	}, nil)
	for _, tc := range []struct {
		attempt int
		want    string
	}{{0, "1"}, {1, "1"}, {2, "2"}} {
		var events []runtime.Event
		turn := &runtime.Turn{SessionID: "sess_1", ResponseID: "resp_2", Attempt: tc.attempt}
		if err := agent.Run(context.Background(), turn, collect(&events)); err != nil {
			t.Fatalf("Run: %v", err)
		}
		if got := textOf(events); got != tc.want {
			t.Errorf("attempt %d: HARNEST_ATTEMPT is %q, want %q", tc.attempt, got, tc.want)
		}
	}
}

func TestExecRelativeProgramAndDir(t *testing.T) {
	folder := t.TempDir()
	if err := os.MkdirAll(filepath.Join(folder, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(folder, "work"), 0o755); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\npwd\n"
	if err := os.WriteFile(filepath.Join(folder, "bin", "where.sh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}

	agent, err := NewExec(config.ExecBackend{Command: []string{"./bin/where.sh"}, Dir: "work"}, folder, nil)
	if err != nil {
		t.Fatalf("NewExec: %v", err)
	}
	var events []runtime.Event
	if err := agent.Run(context.Background(), &runtime.Turn{}, collect(&events)); err != nil {
		t.Fatalf("Run: %v", err)
	}
	want, _ := filepath.EvalSymlinks(filepath.Join(folder, "work"))
	got, _ := filepath.EvalSymlinks(strings.TrimSpace(textOf(events)))
	if got != want {
		t.Errorf("program ran in %q, want %q", got, want)
	}

	if _, err := NewExec(config.ExecBackend{Command: []string{"./bin/missing"}}, folder, nil); err == nil {
		t.Error("NewExec with a missing program succeeded")
	}
	if _, err := NewExec(config.ExecBackend{Command: []string{"no-such-program-harnest"}}, folder, nil); err == nil {
		t.Error("NewExec with a program not in PATH succeeded")
	}
	if _, err := NewExec(config.ExecBackend{Command: []string{"cat"}, Dir: "nowhere"}, folder, nil); err == nil {
		t.Error("NewExec with a missing working directory succeeded")
	}
}

// checkNoGoroutineLeak fails the test if, after a bounded wait, more
// goroutines run than before (baseline).
func checkNoGoroutineLeak(t *testing.T, baseline int) {
	t.Helper()
	for range 200 {
		if goruntime.NumGoroutine() <= baseline {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Errorf("%d goroutines run, %d before the turn", goruntime.NumGoroutine(), baseline)
}

// processGone reports whether pid no longer runs: it does not exist, or it
// is a zombie waiting for a parent that is not us.
func processGone(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	// The state follows the command name in parentheses: "pid (comm) S ...".
	end := bytes.LastIndexByte(stat, ')')
	return end >= 0 && end+2 < len(stat) && stat[end+2] == 'Z'
}

func TestExecCancelKillsProcessGroup(t *testing.T) {
	// The shell prints its own pid and those of two children, then waits.
	script := `echo $$; sleep 100 & echo $!; sleep 100 & echo $!; wait`
	agent := newExec(t, config.ExecBackend{Command: shell(script)}, nil)
	baseline := goruntime.NumGoroutine()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var events safeEvents
	done := make(chan error, 1)
	go func() { done <- agent.Run(ctx, &runtime.Turn{}, events.emit) }()

	var pids []int
	for range 400 {
		fields := strings.Fields(events.text())
		if len(fields) == 3 {
			for _, f := range fields {
				pid, err := strconv.Atoi(f)
				if err != nil {
					t.Fatalf("bad pid %q", f)
				}
				pids = append(pids, pid)
			}
			break
		}
		time.Sleep(25 * time.Millisecond)
	}
	if len(pids) != 3 {
		t.Fatalf("did not get three pids, output is %q", events.text())
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

	for _, pid := range pids {
		gone := false
		for range 200 {
			if processGone(pid) {
				gone = true
				break
			}
			time.Sleep(25 * time.Millisecond)
		}
		if !gone {
			t.Errorf("process %d still runs after cancellation", pid)
		}
	}
	checkNoGoroutineLeak(t, baseline)
}

func TestExecTimeout(t *testing.T) {
	agent := newExec(t, config.ExecBackend{Command: []string{"sleep", "100"}, TimeoutSeconds: 1}, nil)
	done := make(chan error, 1)
	go func() {
		var events []runtime.Event
		done <- agent.Run(context.Background(), &runtime.Turn{}, collect(&events))
	}()
	select {
	case err := <-done:
		if !errors.Is(err, runtime.ErrTimeout) {
			t.Errorf("Run returned %v, want a runtime.ErrTimeout error", err)
		}
		if err != nil && !strings.Contains(err.Error(), "timed out") {
			t.Errorf("error %q does not say it timed out", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Run did not time out")
	}
}

func TestExecStopsWhenEmitFails(t *testing.T) {
	agent := newExec(t, config.ExecBackend{Command: []string{"yes"}}, nil)
	baseline := goruntime.NumGoroutine()
	stop := errors.New("response is over")
	done := make(chan error, 1)
	go func() {
		done <- agent.Run(context.Background(), &runtime.Turn{}, func(runtime.Event) error { return stop })
	}()
	select {
	case err := <-done:
		if !errors.Is(err, stop) {
			t.Errorf("Run returned %v, want the emit error", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not stop when emit failed")
	}
	checkNoGoroutineLeak(t, baseline)
}

func TestExecProgramLeavesBackgroundChild(t *testing.T) {
	// The program exits at once but its child keeps stdout open; the turn
	// must still end (the group is killed when the program exits).
	agent := newExec(t, config.ExecBackend{Command: shell("echo done; sleep 100 &")}, nil)
	done := make(chan error, 1)
	var events safeEvents
	go func() { done <- agent.Run(context.Background(), &runtime.Turn{}, events.emit) }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after the program exited")
	}
	if got := events.text(); got != "done\n" {
		t.Errorf("output is %q, want %q", got, "done\n")
	}
}

func TestSplitUTF8(t *testing.T) {
	cases := []struct {
		in, complete, rest string
	}{
		{"", "", ""},
		{"abc", "abc", ""},
		{"é", "é", ""},
		{"a\xc3", "a", "\xc3"},                 // first byte of é
		{"a\xe2\x9c", "a", "\xe2\x9c"},         // two of three bytes of ✓
		{"a\xf0\x9f\x98", "a", "\xf0\x9f\x98"}, // three of four bytes of 😀
		{"a😀", "a😀", ""},
		{"a\x80\x80\x80\x80", "a\x80\x80\x80\x80", ""}, // invalid: not held back
		{"a\xff", "a\xff", ""},
	}
	for _, c := range cases {
		complete, rest := splitUTF8([]byte(c.in))
		if string(complete) != c.complete || string(rest) != c.rest {
			t.Errorf("splitUTF8(%q) = %q, %q; want %q, %q", c.in, complete, rest, c.complete, c.rest)
		}
	}
}

func TestSplitUTF8EveryCut(t *testing.T) {
	// Cut the text at every pair of positions, as reads might, and feed the
	// pieces through splitUTF8 the way Run does: every delta must be valid
	// UTF-8 and together they must give the text back.
	text := "aé✓😀z€"
	for i := 0; i <= len(text); i++ {
		for j := i; j <= len(text); j++ {
			var out strings.Builder
			var pending []byte
			for _, read := range []string{text[:i], text[i:j], text[j:]} {
				pending = append(pending, read...)
				complete, rest := splitUTF8(pending)
				if !utf8.Valid(complete) {
					t.Fatalf("cuts %d,%d: delta %q is not valid UTF-8", i, j, complete)
				}
				out.Write(complete)
				pending = append([]byte(nil), rest...)
			}
			out.Write(pending)
			if out.String() != text {
				t.Fatalf("cuts %d,%d: got %q, want %q", i, j, out.String(), text)
			}
		}
	}
}

func TestTailBufferKeepsTheEnd(t *testing.T) {
	tail := tailBuffer{max: 4}
	tail.Write([]byte("ab"))
	if got := tail.String(); got != "ab" {
		t.Errorf("got %q, want %q", got, "ab")
	}
	tail.Write([]byte("cdef"))
	if got := tail.String(); got != "...cdef" {
		t.Errorf("got %q, want %q", got, "...cdef")
	}
}

func TestExecLargeInput(t *testing.T) {
	input := strings.Repeat("0123456789abcdé\n", 64<<10) // about 1 MiB
	var events []runtime.Event
	cat := newExec(t, config.ExecBackend{Command: []string{"cat"}}, nil)
	if err := cat.Run(context.Background(), &runtime.Turn{Input: input}, collect(&events)); err != nil {
		t.Fatalf("Run(cat): %v", err)
	}
	if got := textOf(events); got != input {
		t.Errorf("cat gave back %d bytes, want the %d of the input", len(got), len(input))
	}
	for _, e := range events {
		if !utf8.ValidString(e.Delta) {
			t.Fatalf("delta %q is not valid UTF-8", e.Delta)
		}
	}

	// A program that never reads its input must not make the turn hang.
	events = nil
	deaf := newExec(t, config.ExecBackend{Command: shell("echo ignored")}, nil)
	if err := deaf.Run(context.Background(), &runtime.Turn{Input: input}, collect(&events)); err != nil {
		t.Fatalf("Run(deaf): %v", err)
	}
	if got := textOf(events); got != "ignored\n" {
		t.Errorf("output is %q, want %q", got, "ignored\n")
	}
}
