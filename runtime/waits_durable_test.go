package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harnest/harnest/store"
	"github.com/harnest/harnest/store/memstore"
)

// approvingAgent asks for one approval, then answers; it counts its runs.
func approvingAgent(runs *atomic.Int64) Agent {
	return AgentFunc(func(ctx context.Context, turn *Turn, emit Emit) error {
		runs.Add(1)
		if err := turn.RequestApproval(ctx, ApprovalRequest{Action: "deploy", Message: "Deploy?"}); err != nil {
			return err
		}
		return emit(Event{Type: EventTextDelta, Delta: "deployed: " + turn.Input})
	})
}

// suspendedLostRun puts into st a background run of a replica that died
// while it waited for its first approval (the ID its turn gives it),
// expiring at expires; it returns the approval's ID.
func suspendedLostRun(t *testing.T, st store.Store, expires time.Time) string {
	t.Helper()
	id := waitIDFor("approval_", "resp_lost", store.WaitApproval, "resp_lost", 1)
	action := &RequiredAction{Type: "human_approval", ID: id, CallID: "resp_lost", Action: "deploy", ExpiresAt: timestamp(expires)}
	lostWaitingRun(t, st, action, store.WaitApproval, expires)
	return id
}

// lostWaitingRun puts into st a background run of a replica that died
// while it waited for action.
func lostWaitingRun(t *testing.T, st store.Store, action *RequiredAction, kind string, expires time.Time) {
	t.Helper()
	ctx := context.Background()
	id := action.ID
	env := Envelope{ID: "resp_lost", SessionID: "sess_lost", EnvelopeBody: EnvelopeBody{Status: StatusInProgress, Output: []OutputItem{}, Metadata: emptyObject}}
	receipt, _ := env.encode()
	_, err := st.BeginResponse(ctx, store.Begin{User: "u", Session: "sess_lost", ResponseID: "resp_lost", CreateSession: true,
		Receipt: receipt, Lease: time.Minute, Replica: "replica_dead", Now: "t0",
		Request: encodeRerun(ResponseRequest{Input: "v2", Background: true}, "u", false)})
	if err != nil {
		t.Fatal(err)
	}
	env.Status = StatusRequiresAction
	env.RequiredAction = action
	suspended, _ := env.encode()
	events := []store.Event{
		{Sequence: 0, Type: EventCreated, JSON: []byte(`{"type":"response.created","sequence":0}`)},
		{Sequence: 1, Type: EventApproval, JSON: []byte(`{"type":"response.approval_required","sequence":1}`)},
		{Sequence: 2, Type: EventCompleted, JSON: []byte(`{"type":"response.completed","sequence":2}`)},
	}
	err = st.CommitResponse(ctx, store.Commit{User: "u", Session: "sess_lost", ResponseID: "resp_lost", Receipt: suspended, Events: events,
		Wait:    &store.Wait{ID: id, Kind: kind, ResponseID: "resp_lost", ExpiresAt: expires, AfterSequence: 2, Replica: "replica_dead"},
		Replica: "replica_dead", Now: "t1"})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Heartbeat(ctx, "replica_dead", time.Millisecond, time.Now().Add(-time.Second)); err != nil {
		t.Fatal(err)
	}
}

// parked waits (up to 10 s) until the lost replica's suspended run is
// registered under no replica.
func parked(t *testing.T, st store.Store) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if runs, err := st.RunsOf(context.Background(), parkedReplica, 10); err == nil && len(runs) == 1 {
			return
		}
	}
	t.Fatal("the suspended run of the lost replica was not parked within 10 s")
}

// A run suspended on an approval outlives its replica: the sweeper leaves
// it requires_action with its approval pending, and the answer, given to
// another replica, runs the turn again there, which finds the approval
// answered instead of asking again; the caller gets the completed receipt.
func TestAnsweredWaitOfALostReplica(t *testing.T) {
	st := memstore.New(memstore.Options{})
	t.Cleanup(func() { _ = st.Close() }) // after the service's shutdown (cleanups run last first)
	id := suspendedLostRun(t, st, time.Now().Add(time.Hour))
	var runs atomic.Int64
	s := claimingService(t, st, approvingAgent(&runs), true, 0)
	parked(t, st)
	ctx := context.Background()
	if b, _, _ := st.Receipt(ctx, "u", "sess_lost", "resp_lost"); receiptStatus(b) != StatusRequiresAction {
		t.Fatalf("the parked run's receipt: %s", b)
	}
	if w, _, _ := st.GetWait(ctx, "u", id); w.Status != store.WaitPending {
		t.Fatalf("the parked run's wait: %+v", w)
	}
	answer, err := s.Decide(ctx, Principal{UserID: "u"}, id, true)
	if err != nil || answer.Err != nil {
		t.Fatalf("answer: %v %v", err, answer.Err)
	}
	var env Envelope
	if err := json.Unmarshal(answer.Body, &env); err != nil {
		t.Fatal(err)
	}
	if env.Status != StatusCompleted || env.OutputText != "deployed: v2" || runs.Load() != 1 {
		t.Fatalf("answer %s, agent runs %d", answer.Body, runs.Load())
	}
	if final := finalReceipt(t, st); final.Status != StatusCompleted {
		t.Fatalf("final receipt %+v", final)
	}
	msgs, err := st.Messages(ctx, "u", "sess_lost", 0, 10)
	if err != nil || len(msgs) != 2 {
		t.Fatalf("the transcript holds %d messages (%v), want the turn once", len(msgs), err)
	}
	// A second answer is refused; the receipt stays.
	if _, err := s.Decide(ctx, Principal{UserID: "u"}, id, false); err == nil {
		t.Fatal("a second answer was taken")
	}
	// The parked registration is forgotten.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if runs, _ := st.RunsOf(ctx, parkedReplica, 10); len(runs) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the parked registration stayed")
		}
	}
}

// A parked run's approval expires with no replica holding it: the sweeper
// expires it and the turn ends as an expired approval does (denied).
func TestParkedWaitExpires(t *testing.T) {
	st := memstore.New(memstore.Options{})
	t.Cleanup(func() { _ = st.Close() }) // after the service's shutdown (cleanups run last first)
	id := suspendedLostRun(t, st, time.Now().Add(time.Second))
	var runs atomic.Int64
	claimingService(t, st, approvingAgent(&runs), true, 0)
	env := finalReceipt(t, st)
	if env.Status != StatusDenied {
		t.Fatalf("receipt after the expiry %+v, want denied", env)
	}
	if w, _, _ := st.GetWait(context.Background(), "u", id); w.Status != store.WaitExpired {
		t.Fatalf("wait %+v, want expired", w)
	}
	if runs.Load() != 1 {
		t.Fatalf("agent runs %d, want 1", runs.Load())
	}
}

// Without onReplicaLoss: rerun a lost replica's suspended run fails as
// before, and its answer is refused with execution_unavailable.
func TestSuspendedRunOfALostReplicaFailsWithoutRerun(t *testing.T) {
	st := memstore.New(memstore.Options{})
	t.Cleanup(func() { _ = st.Close() }) // after the service's shutdown (cleanups run last first)
	id := suspendedLostRun(t, st, time.Now().Add(time.Hour))
	var runs atomic.Int64
	s := claimingService(t, st, approvingAgent(&runs), false, 0)
	if env := finalReceipt(t, st); env.Status != StatusFailed || env.Error == nil || env.Error.Code != CodeReplicaLost {
		t.Fatalf("receipt %+v", env)
	}
	_, err := s.Decide(context.Background(), Principal{UserID: "u"}, id, true)
	var e *Error
	if !errors.As(err, &e) || e.Code != "execution_unavailable" {
		t.Fatalf("answer: %v, want execution_unavailable", err)
	}
}

// A wait's ID is the same in every attempt of a turn.
func TestWaitIDsAreDeterministic(t *testing.T) {
	a := waitIDFor("approval_", "resp_1", store.WaitApproval, "resp_1", 1)
	if a != waitIDFor("approval_", "resp_1", store.WaitApproval, "resp_1", 1) || a == waitIDFor("approval_", "resp_1", store.WaitApproval, "resp_1", 2) ||
		a == waitIDFor("approval_", "resp_2", store.WaitApproval, "resp_2", 1) || len(a) != len("approval_")+32 {
		t.Fatalf("wait IDs: %s", a)
	}
}

// A client tool's output, given to another replica while the run's replica
// is dead (not yet parked), runs the turn again there: the agent's request
// for the same call gets the stored output at once.
func TestSubmittedClientToolOfALostReplica(t *testing.T) {
	st := memstore.New(memstore.Options{})
	t.Cleanup(func() { _ = st.Close() }) // after the service's shutdown (cleanups run last first)
	expires := time.Now().Add(time.Hour)
	id := waitIDFor("client_tool_", "resp_lost", store.WaitClientTool, "call_7", 1)
	lostWaitingRun(t, st, &RequiredAction{Type: "client_tool", ID: id, CallID: "call_7", Name: "weather", ExpiresAt: timestamp(expires)},
		store.WaitClientTool, expires)
	var runs atomic.Int64
	agent := AgentFunc(func(ctx context.Context, turn *Turn, emit Emit) error {
		runs.Add(1)
		out, err := turn.RequestClientTool(ctx, ClientToolRequest{CallID: "call_7", Name: "weather", Arguments: json.RawMessage(`{"city":"Oslo"}`)})
		if err != nil {
			return err
		}
		return emit(Event{Type: EventTextDelta, Delta: "weather: " + string(out)})
	})
	s := New(Options{Store: st, Agent: agent, RerunOnReplicaLoss: true, FlushDelay: time.Millisecond})
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Shutdown(context.Background()) })
	answer, err := s.SubmitClientTool(context.Background(), Principal{UserID: "u"}, id, json.RawMessage(`"sunny"`))
	if err != nil || answer.Err != nil {
		t.Fatalf("submit: %v %v", err, answer.Err)
	}
	var env Envelope
	if err := json.Unmarshal(answer.Body, &env); err != nil {
		t.Fatal(err)
	}
	if env.Status != StatusCompleted || env.OutputText != `weather: "sunny"` || runs.Load() != 1 {
		t.Fatalf("answer %s, agent runs %d", answer.Body, runs.Load())
	}
}
