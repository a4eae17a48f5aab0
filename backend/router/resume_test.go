package router_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harnest/harnest/backend/router"
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

// slowHarness records a resume point of its own and works until its turn
// ends; a later attempt that recalls the point answers at once.
type slowHarness struct {
	asked    atomic.Int32 // first attempts (nothing recalled)
	resumed  atomic.Int32 // attempts that recalled the point
	recorded chan struct{}
}

func (h *slowHarness) Run(ctx context.Context, turn *runtime.Turn, emit runtime.Emit) error {
	if data, ok := turn.Journal.Recall("asked"); ok && string(data) == "yes" {
		h.resumed.Add(1)
		return emit(runtime.Event{Type: runtime.EventTextDelta, Delta: "resumed answer"})
	}
	h.asked.Add(1)
	if err := turn.Journal.Record(ctx, "asked", []byte("yes")); err != nil {
		return err
	}
	close(h.recorded)
	<-ctx.Done()
	return ctx.Err()
}

// A routed turn whose replica is lost while its chosen harness works is
// continued by the replica that claims it: the router asks that rung again
// without routing the turn again, the harness recalls its own resume point
// (its keys scoped to the rung), the house is never asked, and the
// router's receipt is written once (an attempt handed off on shutdown
// writes none).
func TestResumeAsksTheRecordedRung(t *testing.T) {
	for _, how := range []string{"frozen", "shutdown"} {
		t.Run(how, func(t *testing.T) { resumeRecordedRung(t, how) })
	}
}

func resumeRecordedRung(t *testing.T, how string) {
	st := memstore.New(memstore.Options{})
	t.Cleanup(func() { _ = st.Close() })
	lost := &freezable{Store: st}
	slow := &slowHarness{recorded: make(chan struct{})}
	var houseAsked atomic.Int32
	house := runtime.AgentFunc(func(ctx context.Context, turn *runtime.Turn, emit runtime.Emit) error {
		houseAsked.Add(1)
		return emit(runtime.Event{Type: runtime.EventTextDelta, Delta: "house answer"})
	})
	cfg := config.RouterBackend{
		Harnesses: map[string]config.RouterHarness{"house": echo(), "slow": {Echo: &config.EchoBackend{}, WaitMs: 30_000}},
		House:     "house", Choice: "slow",
	}
	replica := func(s store.Store) *runtime.Service {
		r, err := router.New(router.Options{Config: cfg, Store: s, Harnesses: map[string]runtime.Agent{"house": house, "slow": slow}})
		if err != nil {
			t.Fatal(err)
		}
		svc := runtime.New(runtime.Options{Store: s, Agent: r, Liveness: 300 * time.Millisecond, SweepInterval: 50 * time.Millisecond,
			RerunOnReplicaLoss: true, FlushDelay: time.Millisecond, Logger: slog.New(slog.DiscardHandler)})
		if err := svc.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = svc.Shutdown(context.Background()) })
		return svc
	}
	first := replica(lost)
	replica(st)
	time.Sleep(400 * time.Millisecond) // both replicas are live and trust their liveness

	ctx := context.Background()
	r, err := first.StartResponse(ctx, runtime.Principal{UserID: "olive"}, runtime.ResponseRequest{Input: "route me", Background: true})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-slow.recorded:
	case <-time.After(5 * time.Second):
		t.Fatal("the slow harness was not asked")
	}
	j, err := st.Journal(ctx, "olive", r.SessionID, r.ID)
	if err != nil || j.Points["router/rung"] == nil || !strings.HasSuffix(string(j.Points["rung/slow/asked"]), "yes") {
		t.Fatalf("journal %v (%v): want the rung and the harness's own point under rung/slow/", j.Points, err)
	}
	if how == "frozen" {
		lost.frozen.Store(true)
	} else {
		sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		if err := first.Shutdown(sctx); err != nil { // the attempt is handed off and ends
			t.Fatal(err)
		}
	}

	var env runtime.Envelope
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		b, _, err := st.Receipt(ctx, "olive", r.SessionID, r.ID)
		if err == nil && store.IsFinalReceipt(b) {
			if err := json.Unmarshal(b, &env); err != nil {
				t.Fatal(err)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no final receipt within 20 s: %s", b)
		}
	}
	if env.Status != runtime.StatusCompleted || env.OutputText != "resumed answer" {
		t.Fatalf("receipt %s %q (%+v)", env.Status, env.OutputText, env.Error)
	}
	if a, res, h := slow.asked.Load(), slow.resumed.Load(), houseAsked.Load(); a != 1 || res != 1 || h != 0 {
		t.Errorf("the slow harness was asked %d times and resumed %d times, the house %d times; want 1, 1, 0", a, res, h)
	}
	// The lost attempt ends once fenced; give it the time to (not) write.
	time.Sleep(300 * time.Millisecond)
	page, err := st.ListRouterReceipts(ctx, "", 100, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Receipts) != 1 {
		t.Fatalf("%d router receipts, want 1: %+v", len(page.Receipts), page.Receipts)
	}
	rec := page.Receipts[0]
	if rec.AnsweredBy != "slow" || rec.Choice != "slow" || len(rec.Rungs) != 1 || rec.Rungs[0].Name != "slow" || rec.Rungs[0].Reason != "" {
		t.Errorf("router receipt %+v", rec)
	}
	if n, _, err := st.TakeRouterCount(ctx, "turns", 0, -1, time.Now()); err != nil || n != 1 {
		t.Errorf("the turn was counted %d times (%v), want once", n, err)
	}
}
