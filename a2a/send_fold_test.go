package a2a_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/server/servertest"
	"github.com/harnest/harnest/store"
	"github.com/harnest/harnest/store/memstore"
)

// logReads is a store that counts the reads of responses' event logs.
type logReads struct {
	store.Store
	reads atomic.Int64
}

func (s *logReads) EventsAfter(ctx context.Context, user, session, responseID string, after, limit int) ([]store.Event, error) {
	s.reads.Add(1)
	return s.Store.EventsAfter(ctx, user, session, responseID, after, limit)
}

// A blocking SendMessage answered with a task makes the task from what its
// response handed back (its events and its receipt): nothing is read back
// from the event log, and the task answered is the task stored.
func TestBlockingSendFoldsTheResponseItRan(t *testing.T) {
	agents := map[string]runtime.AgentFunc{
		stateCompleted: func(ctx context.Context, turn *runtime.Turn, emit runtime.Emit) error {
			_ = emit(runtime.Event{Type: runtime.EventAgentActivity, Activity: runtime.ActivityTask})
			_ = emit(runtime.Event{Type: runtime.EventThinkingDelta, Delta: "hmm"})
			_ = emit(runtime.Event{Type: runtime.EventTextDelta, Delta: "Echo: ", Agent: "a"})
			_ = emit(runtime.Event{Type: runtime.EventTextDelta, Delta: turn.Input, Agent: "a"})
			return emit(runtime.Event{Type: runtime.EventArtifact, Artifact: &runtime.ArtifactInfo{ID: "doc", Name: "doc",
				Parts: []runtime.ArtifactPart{{Type: "text", Text: "x"}}, LastChunk: true}})
		},
		"TASK_STATE_FAILED": func(ctx context.Context, turn *runtime.Turn, emit runtime.Emit) error {
			_ = emit(runtime.Event{Type: runtime.EventTextDelta, Delta: "half"})
			return errors.New("the agent broke")
		},
	}
	for state, agent := range agents {
		t.Run(state, func(t *testing.T) {
			st := &logReads{Store: memstore.New(memstore.Options{})}
			t.Cleanup(func() { _ = st.Close() })
			ss := setup{agent: agent}.serverSetup()
			ss.Store = st
			h := harnessOf(servertest.Start(t, "", ss))
			sent := h.rpc("1.0", "SendMessage", map[string]any{"message": map[string]any{
				"messageId": "m1", "role": "ROLE_USER", "parts": []any{map[string]any{"text": "hello"}}}}).JSON(t)
			task := dig(sent, "result", "task")
			if str(task, "status", "state") != state {
				t.Fatalf("sent: %v", sent)
			}
			if n := st.reads.Load(); n != 0 {
				t.Fatalf("the send read the event log %d times", n)
			}
			got := h.rpc("1.0", "GetTask", map[string]any{"id": str(task, "id")}).JSON(t)
			a, _ := json.Marshal(task)
			b, _ := json.Marshal(dig(got, "result"))
			if string(a) != string(b) {
				t.Fatalf("the task sent is not the task stored:\n%s\n%s", a, b)
			}
		})
	}
}
