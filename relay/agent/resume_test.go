package agent_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/relay/agent"
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

func startReplica(t *testing.T, st runtime.Store, a runtime.Agent) *runtime.Service {
	t.Helper()
	s := runtime.New(runtime.Options{Store: st, Agent: a, Liveness: 300 * time.Millisecond, SweepInterval: 50 * time.Millisecond,
		RerunOnReplicaLoss: true, FlushDelay: time.Millisecond, Logger: slog.New(slog.DiscardHandler)})
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Shutdown(context.Background()) })
	return s
}

// pair makes a participant of owner "u" in st.
func pair(t *testing.T, st store.Store) store.RelayParticipant {
	t.Helper()
	ctx := context.Background()
	now := time.Now()
	if err := st.CreatePairingCode(ctx, store.PairingCode{Hash: "code", Owner: "u", Name: "helper", Kind: "cli", ExpiresAt: now.Add(time.Minute)}, now); err != nil {
		t.Fatal(err)
	}
	p, err := st.ExchangePairingCode(ctx, store.Pairing{CodeHash: "code", Name: "helper", Kind: "cli", ParticipantID: "p1",
		TokenHash: "tok", Now: now, TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// A background relay turn whose replica is lost (frozen) or shuts down
// while the outside agent thinks is continued by the replica that claims
// it: it waits for the reply to the same inbox item (the outside agent
// gets one item, never a second), and that reply completes the turn.
func TestResumeWaitsForTheSameInboxItem(t *testing.T) {
	for _, how := range []string{"frozen", "shutdown"} {
		t.Run(how, func(t *testing.T) {
			st := memstore.New(memstore.Options{})
			t.Cleanup(func() { _ = st.Close() })
			p := pair(t, st)
			lost := &freezable{Store: st}
			relayAgent := func(s store.Store) runtime.Agent {
				return agent.New(agent.Options{Store: s, Section: config.RelayBackend{}, IsOwner: func(u string) bool { return u == "u" }})
			}
			first := startReplica(t, lost, relayAgent(lost))
			startReplica(t, st, relayAgent(st))
			time.Sleep(400 * time.Millisecond) // both replicas trust their liveness

			r, err := first.StartResponse(context.Background(), runtime.Principal{UserID: "u"}, runtime.ResponseRequest{Input: "what now?", Background: true})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			var item store.RelayItem
			for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
				items, _ := st.PendingRelayItems(ctx, "u", p.ID, time.Now())
				j, _ := st.Journal(ctx, "u", r.SessionID, r.ID)
				if len(items) == 1 && j.Points["relay/item"] != nil {
					item = items[0]
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("the inbox item was not enqueued and recorded")
				}
			}
			if how == "frozen" {
				lost.frozen.Store(true)
			} else {
				sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
				defer cancel()
				if err := first.Shutdown(sctx); err != nil {
					t.Fatal(err)
				}
			}
			attempt := 2 // a loss spends an attempt, a hand-off none
			if how == "shutdown" {
				attempt = 1
			}
			waitForAttempt(t, st, r.SessionID, r.ID, attempt)
			items, err := st.PendingRelayItems(ctx, "u", p.ID, time.Now())
			if err != nil || len(items) != 1 || items[0].ID != item.ID {
				t.Fatalf("the inbox holds %+v (%v), want the one item %s", items, err, item.ID)
			}
			if err := st.ReplyRelayItem(ctx, "u", p.ID, item.ID, "do this", time.Now()); err != nil {
				t.Fatal(err)
			}
			env := finalReceipt(t, st, r.SessionID, r.ID)
			if env.Status != runtime.StatusCompleted || env.OutputText != "do this" {
				t.Fatalf("receipt %s %q (%+v)", env.Status, env.OutputText, env.Error)
			}
			if items, _ := st.PendingRelayItems(ctx, "u", p.ID, time.Now()); len(items) != 0 {
				t.Errorf("the inbox still holds %+v", items)
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
			t.Fatalf("no final receipt within 20 s: %s", b)
		}
	}
}
