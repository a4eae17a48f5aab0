package runtime

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harnest/harnest/store"
	"github.com/harnest/harnest/store/memstore"
)

// A batch of client tool calls answered on another replica while the run's
// replica is dead runs the turn again there: its stored request still
// takes batches, and the agent's request for the same calls gets every
// stored output at once, in the calls' order.
func TestAnsweredClientToolBatchOfALostReplica(t *testing.T) {
	st := memstore.New(memstore.Options{})
	t.Cleanup(func() { _ = st.Close() }) // after the service's shutdown (cleanups run last first)
	ctx := context.Background()
	expires := time.Now().Add(time.Hour)
	id := waitIDFor("client_tool_", "resp_lost", store.WaitClientTool, "call_a", 1)
	env := Envelope{ID: "resp_lost", SessionID: "sess_lost", EnvelopeBody: EnvelopeBody{Status: StatusInProgress, Output: []OutputItem{}, Metadata: emptyObject}}
	receipt, _ := env.encode()
	_, err := st.BeginResponse(ctx, store.Begin{User: "u", Session: "sess_lost", ResponseID: "resp_lost", CreateSession: true,
		Receipt: receipt, Lease: time.Minute, Replica: "replica_dead", Now: "t0",
		Request: encodeRerun(ResponseRequest{Input: "v2", Background: true, ParallelClientTools: true}, "u", false)})
	if err != nil {
		t.Fatal(err)
	}
	env.Status = StatusRequiresAction
	env.RequiredAction = &RequiredAction{Type: "client_tool", ID: id, CallID: "call_a", Name: "weather", ExpiresAt: timestamp(expires)}
	suspended, _ := env.encode()
	err = st.CommitResponse(ctx, store.Commit{User: "u", Session: "sess_lost", ResponseID: "resp_lost", Receipt: suspended,
		Events: []store.Event{{Sequence: 0, Type: EventCreated, JSON: []byte(`{"type":"response.created","sequence":0}`)},
			{Sequence: 1, Type: EventCompleted, JSON: []byte(`{"type":"response.completed","sequence":1}`)}},
		Wait:    &store.Wait{ID: id, Kind: store.WaitClientTool, ResponseID: "resp_lost", ExpiresAt: expires, AfterSequence: 1, Replica: "replica_dead"},
		Replica: "replica_dead", Now: "t1"})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Heartbeat(ctx, "replica_dead", time.Millisecond, time.Now().Add(-time.Second)); err != nil {
		t.Fatal(err)
	}
	var runs atomic.Int64
	agent := AgentFunc(func(ctx context.Context, turn *Turn, emit Emit) error {
		runs.Add(1)
		if turn.RequestClientTools == nil {
			return emit(Event{Type: EventTextDelta, Delta: "the claimed turn takes no batches"})
		}
		outs, err := turn.RequestClientTools(ctx, []ClientToolRequest{{CallID: "call_a", Name: "weather"}, {CallID: "call_b", Name: "weather"}})
		if err != nil {
			return err
		}
		return emit(Event{Type: EventTextDelta, Delta: string(outs[0]) + " then " + string(outs[1])})
	})
	s := New(Options{Store: st, Agent: agent, RerunOnReplicaLoss: true, FlushDelay: time.Millisecond})
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Shutdown(context.Background()) })
	answer, err := s.SubmitClientTool(ctx, Principal{UserID: "u"}, id, json.RawMessage(`["sunny","snow"]`))
	if err != nil || answer.Err != nil {
		t.Fatalf("submit: %v %v", err, answer.Err)
	}
	var got Envelope
	if err := json.Unmarshal(answer.Body, &got); err != nil {
		t.Fatal(err)
	}
	if got.Status != StatusCompleted || got.OutputText != `"sunny" then "snow"` || runs.Load() != 1 {
		t.Fatalf("answer %s, agent runs %d", answer.Body, runs.Load())
	}
}

// A batch is announced as one client_tool.requested event per call, all
// naming one wait and placed by index and size; an answer that is not one
// output per call fails the calls (ErrClientToolFailed).
func TestClientToolBatchEvents(t *testing.T) {
	st := memstore.New(memstore.Options{})
	t.Cleanup(func() { _ = st.Close() }) // after the service's shutdown (cleanups run last first)
	var failed atomic.Bool
	agent := AgentFunc(func(ctx context.Context, turn *Turn, emit Emit) error {
		_, err := turn.RequestClientTools(ctx, []ClientToolRequest{{CallID: "c1", Name: "a"}, {CallID: "c2", Name: "b"}})
		failed.Store(err == ErrClientToolFailed)
		return emit(Event{Type: EventTextDelta, Delta: "over"})
	})
	s := New(Options{Store: st, Agent: agent, FlushDelay: time.Millisecond})
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Shutdown(context.Background()) })
	p := Principal{UserID: "u"}
	resp, err := s.StartResponse(context.Background(), p, ResponseRequest{Input: "x", Stream: true, ParallelClientTools: true})
	if err != nil {
		t.Fatal(err)
	}
	var calls []*ClientToolInfo
	out := resp.Each(func(e Event) error {
		if e.Type == EventClientTool {
			calls = append(calls, e.ClientTool)
		}
		return nil
	})
	if len(calls) != 2 || calls[0].ID != calls[1].ID || calls[0].CallID != "c1" || calls[1].CallID != "c2" ||
		*calls[0].Batch != (ClientToolBatch{Index: 0, Size: 2}) || *calls[1].Batch != (ClientToolBatch{Index: 1, Size: 2}) ||
		out.Envelope.Status != StatusRequiresAction {
		t.Fatalf("announced %+v, boundary %s", calls, out.Envelope.Status)
	}
	// The receipt lists every call.
	receipt, err := s.GetResponse(context.Background(), p, resp.SessionID, resp.ID)
	var env Envelope
	if err != nil || json.Unmarshal(receipt, &env) != nil || env.RequiredAction == nil || len(env.RequiredAction.Calls) != 2 ||
		env.RequiredAction.Calls[1].CallID != "c2" || env.RequiredAction.Calls[1].Name != "b" {
		t.Fatalf("receipt = %v %s", err, receipt)
	}
	// The log says the same.
	frames, _, err := s.LoggedEvents(context.Background(), p, resp.SessionID, resp.ID, -1, 100)
	if err != nil {
		t.Fatal(err)
	}
	var logged []*ClientToolInfo
	for _, f := range frames {
		if e, _ := f.Event(); e.Type == EventClientTool {
			logged = append(logged, e.ClientTool)
		}
	}
	if len(logged) != 2 || logged[1].Batch == nil || *logged[1].Batch != (ClientToolBatch{Index: 1, Size: 2}) {
		t.Fatalf("logged %+v", logged)
	}
	answer, err := s.SubmitClientTool(context.Background(), p, calls[0].ID, json.RawMessage(`"only one"`))
	if err != nil || answer.Err != nil || !failed.Load() {
		t.Fatalf("submit: %v %v; the agent was told the calls failed: %v", err, answer.Err, failed.Load())
	}
}
