package toolrun

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harnest/harnest/internal/testutil/fakemcp"
)

func TestMain(m *testing.M) {
	fakemcp.ServeIfAsked()
	os.Exit(m.Run())
}

// logBuffer is a slog handler's output that tests read while the set
// writes to it.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// newLogger logs everything (Debug too) as text into the returned buffer.
func newLogger() (*slog.Logger, *logBuffer) {
	buf := &logBuffer{}
	return slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug})), buf
}

// openSet opens a set and closes it when the test ends.
func openSet(t *testing.T, o Options) *Set {
	t.Helper()
	if o.FolderDir == "" {
		o.FolderDir = t.TempDir()
	}
	if o.StartWait == 0 {
		o.StartWait = 10 * time.Second
	}
	s, err := Open(context.Background(), o)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// call calls a tool and fails the test on an error.
func call(t *testing.T, s *Set, name, args string) Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := s.Call(ctx, name, json.RawMessage(args))
	if err != nil {
		t.Fatalf("Call(%s): %v", name, err)
	}
	return res
}

// outputString decodes a Result's Output as a JSON string.
func outputString(t *testing.T, r Result) string {
	t.Helper()
	var s string
	if err := json.Unmarshal(r.Output, &s); err != nil {
		t.Fatalf("output %s is not a JSON string: %v", r.Output, err)
	}
	return s
}

// eventually polls cond every 20 ms for at most d.
func eventually(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// toolNames lists the names of the set's current tools.
func toolNames(s *Set) []string {
	var names []string
	for _, t := range s.Tools() {
		names = append(names, t.Name)
	}
	return names
}

func hasTool(s *Set, name string) bool {
	_, ok := s.Find(name)
	return ok
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

func errorsIs(err, target error) bool { return errors.Is(err, target) }
