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

// lostRun puts into st a background run of a replica that died: begun with
// its stored request, one text delta streamed, its liveness lapsed.
func lostRun(t *testing.T, st store.Store) {
	t.Helper()
	ctx := context.Background()
	env := Envelope{ID: "resp_lost", SessionID: "sess_lost", EnvelopeBody: EnvelopeBody{Status: StatusInProgress, Output: []OutputItem{}, Metadata: emptyObject}}
	receipt, _ := env.encode()
	_, err := st.BeginResponse(ctx, store.Begin{User: "u", Session: "sess_lost", ResponseID: "resp_lost", CreateSession: true,
		Receipt: receipt, Lease: time.Minute, Replica: "replica_dead", Now: "t0",
		Request: encodeRerun(ResponseRequest{Input: "hello again", Background: true}, "u", false)})
	if err != nil {
		t.Fatal(err)
	}
	events := []store.Event{
		{Sequence: 0, Type: EventCreated, JSON: []byte(`{"type":"response.created","sequence":0}`)},
		{Sequence: 1, Type: EventTextDelta, JSON: []byte(`{"type":"response.text.delta","sequence":1,"delta":"half an ans"}`)},
	}
	if err := st.AppendEvents(ctx, "u", "sess_lost", "resp_lost", 1, events); err != nil {
		t.Fatal(err)
	}
	if err := st.Heartbeat(ctx, "replica_dead", time.Millisecond, time.Now().Add(-time.Second)); err != nil {
		t.Fatal(err)
	}
}

// claimingService starts a service on st that claims lost replicas' runs
// quickly (it sweeps every 50 ms; the lost replica's liveness record has
// lapsed already). Its own liveness is 1 s, renewed every third: with
// 300 ms a loaded machine (CI runs -race beside other packages) stalled its
// renewals long enough for it to claim its own runs again, under a new
// epoch (TestEditAnswerOfALostReplica failed so once).
func claimingService(t *testing.T, st store.Store, agent Agent, rerun bool, maxAttempts int) *Service {
	t.Helper()
	s := New(Options{Store: st, Agent: agent, Liveness: time.Second, SweepInterval: 50 * time.Millisecond,
		RerunOnReplicaLoss: rerun, MaxAttempts: maxAttempts, FlushDelay: time.Millisecond})
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Shutdown(context.Background()) })
	return s
}

// finalReceipt waits (up to 10 s) for the lost run's receipt to be final.
func finalReceipt(t *testing.T, st store.Store) Envelope {
	t.Helper()
	return finalReceiptOf(t, st, "u", "sess_lost", "resp_lost")
}

// finalReceiptOf waits (up to 10 s) for a response's receipt to be final.
func finalReceiptOf(t *testing.T, st store.Store, user, session, responseID string) Envelope {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		b, _, err := st.Receipt(context.Background(), user, session, responseID)
		if err == nil && store.IsFinalReceipt(b) {
			var env Envelope
			if err := json.Unmarshal(b, &env); err != nil {
				t.Fatal(err)
			}
			return env
		}
	}
	t.Fatalf("response %s was not finished within 10 s", responseID)
	return Envelope{}
}

// The run of a lost replica is claimed and run again here: the log goes on
// after its last event with one retraction of what the lost attempt
// streamed, an activity naming attempt 2, and the new attempt's answer; the
// lost attempt's writes are refused from the claim on.
func TestClaimedRunIsRunAgain(t *testing.T) {
	st := memstore.New(memstore.Options{})
	t.Cleanup(func() { _ = st.Close() }) // after the service's shutdown (cleanups run last first)
	lostRun(t, st)
	var attempt atomic.Int64
	agent := AgentFunc(func(ctx context.Context, turn *Turn, emit Emit) error {
		attempt.Store(int64(turn.Attempt))
		return emit(Event{Type: EventTextDelta, Delta: "echo: " + turn.Input})
	})
	claimingService(t, st, agent, true, 0)
	env := finalReceipt(t, st)
	if env.Status != StatusCompleted || env.OutputText != "echo: hello again" || attempt.Load() != 2 {
		t.Fatalf("receipt %+v, attempt %d", env, attempt.Load())
	}
	events, err := st.EventsAfter(context.Background(), "u", "sess_lost", "resp_lost", -1, 0)
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for i, e := range events {
		if e.Sequence != i {
			t.Fatalf("sequence %d at %d: %v", e.Sequence, i, events)
		}
		types = append(types, e.Type)
	}
	want := []string{EventCreated, EventTextDelta, EventRetracted, EventAgentActivity, EventTextDelta, EventCompleted}
	if len(types) != len(want) {
		t.Fatalf("events %v, want %v", types, want)
	}
	for i := range want {
		if types[i] != want[i] {
			t.Fatalf("events %v, want %v", types, want)
		}
	}
	var retracted struct {
		Retracted Retraction `json:"retracted"`
	}
	if err := json.Unmarshal(events[2].JSON, &retracted); err != nil {
		t.Fatal(err)
	}
	if r := retracted.Retracted; r.FromSequence != 1 || r.ToSequence != 1 || r.Text != "half an ans" || r.Attempt != 2 {
		t.Fatalf("retraction %+v", r)
	}
	var activity Event
	if err := json.Unmarshal(events[3].JSON, &activity); err != nil || activity.Activity != "attempt" || activity.Code != "2" {
		t.Fatalf("activity %s %v", events[3].JSON, err)
	}
	msgs, err := st.Messages(context.Background(), "u", "sess_lost", 0, 10)
	if err != nil || len(msgs) != 2 {
		t.Fatalf("the transcript holds %d messages (%v), want the turn once", len(msgs), err)
	}
	if err := st.AppendEvents(context.Background(), "u", "sess_lost", "resp_lost", 1, []store.Event{{Sequence: 6, Type: EventTextDelta, JSON: []byte(`{}`)}}); !errors.Is(err, store.ErrFenced) {
		t.Fatalf("a write of the lost attempt: %v", err)
	}
}

// Without onReplicaLoss: rerun, and past the attempt budget, the claimed
// run fails with replica_lost and says how many attempts ran.
func TestClaimedRunFails(t *testing.T) {
	for name, tc := range map[string]struct {
		rerun       bool
		maxAttempts int
	}{"fail": {false, 0}, "budget": {true, 1}} {
		t.Run(name, func(t *testing.T) {
			st := memstore.New(memstore.Options{})
			t.Cleanup(func() { _ = st.Close() }) // after the service's shutdown (cleanups run last first)
			lostRun(t, st)
			ran := atomic.Bool{}
			agent := AgentFunc(func(ctx context.Context, turn *Turn, emit Emit) error { ran.Store(true); return nil })
			claimingService(t, st, agent, tc.rerun, tc.maxAttempts)
			env := finalReceipt(t, st)
			if env.Status != StatusFailed || env.Error == nil || env.Error.Code != CodeReplicaLost || env.Error.Attempts != 1 || ran.Load() {
				t.Fatalf("receipt %+v (error %+v), agent ran %v", env, env.Error, ran.Load())
			}
			events, _ := st.EventsAfter(context.Background(), "u", "sess_lost", "resp_lost", -1, 0)
			if n := len(events); n != 3 || events[2].Type != EventError || events[2].Sequence != 2 {
				t.Fatalf("events %v", events)
			}
		})
	}
}

// heartbeatsFail is a store whose heartbeats fail while down is set, as
// they do through a store outage.
type heartbeatsFail struct {
	store.Store
	down atomic.Bool
}

func (h *heartbeatsFail) Heartbeat(ctx context.Context, replica string, ttl time.Duration, now time.Time) error {
	if h.down.Load() {
		return errors.New("store unavailable")
	}
	return h.Store.Heartbeat(ctx, replica, ttl, now)
}

// A replica whose own heartbeats fail (the store was out for everyone)
// does not take another replica's lapsed liveness record for its death:
// it claims that replica's runs only once its own heartbeats went through
// for a whole TTL.
func TestLivenessNeedsOwnHeartbeats(t *testing.T) {
	mem := memstore.New(memstore.Options{})
	defer mem.Close()
	st := &heartbeatsFail{Store: mem}
	lostRun(t, mem)
	st.down.Store(true)
	agent := AgentFunc(func(ctx context.Context, turn *Turn, emit Emit) error {
		return emit(Event{Type: EventTextDelta, Delta: "echo: " + turn.Input})
	})
	claimingService(t, st, agent, true, 0)
	time.Sleep(time.Second) // three TTLs, many sweeps
	if b, _, _ := mem.Receipt(context.Background(), "u", "sess_lost", "resp_lost"); store.IsFinalReceipt(b) {
		t.Fatalf("claimed while its own heartbeats failed: %s", b)
	}
	if runs, _ := mem.RunsOf(context.Background(), "replica_dead", 10); len(runs) != 1 {
		t.Fatalf("the run was claimed while its own heartbeats failed: %+v", runs)
	}
	st.down.Store(false)
	if env := finalReceipt(t, mem); env.Status != StatusCompleted {
		t.Fatalf("receipt %+v", env)
	}
}
