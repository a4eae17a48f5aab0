package a2aremote_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harnest/harnest/backend/a2aremote"
	"github.com/harnest/harnest/config"
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

// startReplica starts a service on st that claims lost replicas' runs
// quickly and runs them again.
func startReplica(t *testing.T, st runtime.Store, agent runtime.Agent) *runtime.Service {
	t.Helper()
	s := runtime.New(runtime.Options{Store: st, Agent: agent, Liveness: 300 * time.Millisecond, SweepInterval: 50 * time.Millisecond,
		RerunOnReplicaLoss: true, FlushDelay: time.Millisecond, Logger: slog.New(slog.DiscardHandler)})
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Shutdown(context.Background()) })
	return s
}

// A background turn whose replica is lost while its remote task works is
// continued by the replica that claims it: it re-attaches to the recorded
// remote task (subscribed when the agent streams, else polled) and
// answers with the task's result; the remote receives the message once,
// and nothing cancels its task.
func TestResumeReattachesToTheRemoteTask(t *testing.T) {
	for _, c := range goPeerCases[:3] {
		t.Run(c.name, func(t *testing.T) {
			peer := startGoPeer(t, c.setup)
			agent, err := a2aremote.New(a2aremote.Options{Config: config.A2ABackend{URL: peer.URL, AllowHosts: []string{"127.0.0.1"}}})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = agent.Close() })
			st := memstore.New(memstore.Options{})
			t.Cleanup(func() { _ = st.Close() }) // after the replicas stop
			lost := &freezable{Store: st}
			first := startReplica(t, lost, agent)
			startReplica(t, st, agent)
			time.Sleep(400 * time.Millisecond) // both replicas are live and trust their liveness

			r, err := first.StartResponse(context.Background(), runtime.Principal{UserID: "u"}, runtime.ResponseRequest{Input: "slow", Background: true})
			if err != nil {
				t.Fatal(err)
			}
			within(t, peer.started, "the remote task to start")
			// The task is the resume point once the remote named it: wait
			// until it is recorded, then lose the replica.
			for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
				j, err := st.Journal(context.Background(), "u", r.SessionID, r.ID)
				if err == nil && j.Points["a2a/task"] != nil {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("the remote task was not recorded as a resume point")
				}
			}
			lost.frozen.Store(true)
			// Let the claim happen (liveness 300 ms), then let the task end.
			waitForAttempt(t, st, r.SessionID, r.ID, 2)
			close(peer.finish)

			env := finalReceipt(t, st, r.SessionID, r.ID)
			if env.Status != runtime.StatusCompleted || env.OutputText != "slow done" {
				t.Fatalf("receipt %s %q (%+v)", env.Status, env.OutputText, env.Error)
			}
			if n := peer.received(); n != 1 {
				t.Errorf("the remote received %d messages, want 1", n)
			}
			select {
			case id := <-peer.cancelled:
				t.Errorf("the remote task %s was cancelled", id)
			default:
			}
		})
	}
}

// waitForAttempt waits until the response's log names attempt n.
func waitForAttempt(t *testing.T, st store.Store, session, id string, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		events, _ := st.EventsAfter(context.Background(), "u", session, id, -1, 0)
		for _, e := range events {
			var ev runtime.Event
			if e.Type == runtime.EventAgentActivity && json.Unmarshal(e.JSON, &ev) == nil && ev.Activity == "attempt" && ev.Code == strconv.Itoa(n) {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("attempt %d did not start", n)
		}
	}
}

// finalReceipt waits for the response's final receipt.
func finalReceipt(t *testing.T, st store.Store, session, id string) runtime.Envelope {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		b, _, err := st.Receipt(context.Background(), "u", session, id)
		if err == nil && store.IsFinalReceipt(b) {
			var env runtime.Envelope
			if err := json.Unmarshal(b, &env); err != nil {
				t.Fatal(err)
			}
			return env
		}
		if time.Now().After(deadline) {
			t.Fatalf("no final receipt within 20 s: %s", strings.TrimSpace(string(b)))
		}
	}
}

// A replica that shuts down hands its running turn to the other replica
// without cancelling the remote task: the next attempt re-attaches to it
// and the remote receives the message once.
func TestHandOffLeavesTheRemoteTaskRunning(t *testing.T) {
	peer := startGoPeer(t, peerSetup{})
	agent, err := a2aremote.New(a2aremote.Options{Config: config.A2ABackend{URL: peer.URL, AllowHosts: []string{"127.0.0.1"}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = agent.Close() })
	st := memstore.New(memstore.Options{})
	t.Cleanup(func() { _ = st.Close() })
	first := startReplica(t, st, agent)
	startReplica(t, st, agent)
	time.Sleep(400 * time.Millisecond) // both replicas trust their liveness

	r, err := first.StartResponse(context.Background(), runtime.Principal{UserID: "u"}, runtime.ResponseRequest{Input: "slow", Background: true})
	if err != nil {
		t.Fatal(err)
	}
	within(t, peer.started, "the remote task to start")
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		j, err := st.Journal(context.Background(), "u", r.SessionID, r.ID)
		if err == nil && j.Points["a2a/task"] != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the remote task was not recorded as a resume point")
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := first.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	waitForAttempt(t, st, r.SessionID, r.ID, 1) // a hand-off spends no attempt
	close(peer.finish)
	env := finalReceipt(t, st, r.SessionID, r.ID)
	if env.Status != runtime.StatusCompleted || env.OutputText != "slow done" {
		t.Fatalf("receipt %s %q (%+v)", env.Status, env.OutputText, env.Error)
	}
	if n := peer.received(); n != 1 {
		t.Errorf("the remote received %d messages, want 1", n)
	}
	select {
	case id := <-peer.cancelled:
		t.Errorf("the hand-off cancelled the remote task %s", id)
	default:
	}
}
