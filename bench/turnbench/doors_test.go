package turnbench_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/server/servertest"
)

// The doors' turns, in process on the in-process store: an A2A blocking
// SendMessage answered with a message (what bench/run.sh's a2a section
// measures), one answered with a task (the agent asks for one), and an
// AG-UI run. allocs/op and B/op are per turn.

// taskAgent answers with a task: it says so (agent_activity "task"),
// then echoes the input in one delta.
type taskAgent struct{}

func (taskAgent) Run(ctx context.Context, turn *runtime.Turn, emit runtime.Emit) error {
	if err := emit(runtime.Event{Type: runtime.EventAgentActivity, Activity: runtime.ActivityTask}); err != nil {
		return err
	}
	return emit(runtime.Event{Type: runtime.EventTextDelta, Delta: "Echo: " + turn.Input})
}

// doorTurn is one request to a door and what its answer must contain.
type doorTurn struct {
	name, path, body, want string
	agent                  runtime.Agent
	header                 [2]string
}

const a2aSend = `{"jsonrpc":"2.0","id":"1","method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hello"}]}}}`

var doorTurns = []doorTurn{
	{name: "a2a-message", path: "/a2a", body: a2aSend, want: `"message":`, header: [2]string{"A2A-Version", "1.0"}},
	{name: "a2a-task", path: "/a2a", body: a2aSend, want: `"TASK_STATE_COMPLETED"`, agent: taskAgent{}, header: [2]string{"A2A-Version", "1.0"}},
	{name: "agui", path: "/agui", body: `{"threadId":"th-bench","runId":"r1","messages":[{"id":"u1","role":"user","content":"hello"}]}`,
		want: `"type":"RUN_FINISHED"`},
}

// benchCard serves the A2A JSON-RPC binding at /a2a.
func benchCard() map[string]any {
	return map[string]any{
		"name": "Echo", "description": "Echoes.", "version": "1.0.0",
		"supportedInterfaces": []any{
			map[string]any{"url": "http://127.0.0.1:1907/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
		},
		"capabilities":       map[string]any{"streaming": true},
		"defaultInputModes":  []any{"text/plain"},
		"defaultOutputModes": []any{"text/plain"},
		"skills":             []any{map[string]any{"id": "echo", "name": "Echo", "description": "Echoes.", "tags": []any{"echo"}}},
	}
}

func newDoorServer(tb testing.TB, d doorTurn) http.Handler {
	tb.Helper()
	return servertest.Start(tb, "", servertest.Setup{Agent: d.agent, Card: benchCard()}).Srv.Handler
}

// serveDoor serves one request of d and checks its answer.
func serveDoor(tb testing.TB, h http.Handler, d doorTurn) {
	req := httptest.NewRequest(http.MethodPost, d.path, strings.NewReader(d.body))
	req.Header.Set("Content-Type", "application/json")
	if d.header[0] != "" {
		req.Header.Set(d.header[0], d.header[1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK || !bytes.Contains(rec.Body.Bytes(), []byte(d.want)) {
		tb.Fatalf("%s: status %d, want 200 with %q: %s", d.name, rec.Code, d.want, rec.Body.Bytes())
	}
}

// TestDoorTurns checks that every door turn the benchmark measures answers
// as it should.
func TestDoorTurns(t *testing.T) {
	for _, d := range doorTurns {
		t.Run(d.name, func(t *testing.T) {
			h := newDoorServer(t, d)
			serveDoor(t, h, d)
			serveDoor(t, h, d)
		})
	}
}

// BenchmarkDoorTurn is one turn through each door.
func BenchmarkDoorTurn(b *testing.B) {
	for _, d := range doorTurns {
		b.Run(d.name, func(b *testing.B) {
			h := newDoorServer(b, d)
			serveDoor(b, h, d) // warm up
			b.ReportAllocs()
			for b.Loop() {
				serveDoor(b, h, d)
			}
		})
	}
}
