package router_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/harnest/harnest/backend/router"
	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/server/servertest"
	"github.com/harnest/harnest/store"
	"github.com/harnest/harnest/store/stores"
)

// The cost ceiling of these tests: 300 micro-dollars a day, 100 a turn,
// so 3 paid turns.
const (
	ceilingMicros = 300
	turnMicros    = 100
	paidCeiling   = ceilingMicros / turnMicros
)

// pricedByTurn is a router whose choice is a harness priced per turn
// under the ceiling; its answer takes a while, so that concurrent turns
// overlap.
func pricedByTurn() config.RouterBackend {
	return config.RouterBackend{
		Harnesses: map[string]config.RouterHarness{
			"house": echo(),
			"paid": {Echo: &config.EchoBackend{DelayMs: 150}, Pricing: config.RouterPricing{PerTurnMicros: turnMicros},
				DailyCostCeilingMicros: ceilingMicros},
		},
		House: "house", Choice: "paid",
	}
}

// paidTurns counts the receipts answered by paid and reads paid's cost
// today.
func paidTurns(t *testing.T, ts *servertest.Server) (paid, capped int, cost int64) {
	t.Helper()
	all, _ := receipts(t, ts)
	for _, r := range all {
		if r.AnsweredBy == "paid" {
			paid++
		}
		if r.Reason == "harness_cost_ceiling" {
			capped++
		}
	}
	var s router.Status
	servertest.MustStatus(t, ts.As(ownerToken).Get("/owner/router"), 200)
	if err := jsonOf(ts.As(ownerToken).Get("/owner/router").Body, &s); err != nil {
		t.Fatal(err)
	}
	for _, h := range s.Harnesses {
		if h.Name == "paid" {
			cost = h.CostTodayMicros
		}
	}
	return paid, capped, cost
}

// TestCostCeilingOneAtATime: turns one after another pay exactly the
// ceiling's worth, then the house answers.
func TestCostCeilingOneAtATime(t *testing.T) {
	servertest.EachStore(t, setup(pricedByTurn()), func(t *testing.T, ts *servertest.Server) {
		for i := range 5 {
			ask(t, ts, ownerToken, fmt.Sprintf("sequential %d", i))
		}
		paid, capped, cost := paidTurns(t, ts)
		t.Logf("one at a time: %d paid turns, cost %d µ$ (ceiling %d µ$, %d turns)", paid, cost, ceilingMicros, paidCeiling)
		if paid != paidCeiling || capped != 5-paidCeiling || cost != ceilingMicros {
			t.Errorf("%d paid, %d capped, cost %d µ$; want %d paid, %d capped, %d µ$", paid, capped, cost, paidCeiling, 5-paidCeiling, ceilingMicros)
		}
	})
}

// TestCostCeilingConcurrentReplicas: 16 turns at once over two replicas
// of one store never pay past the ceiling: each turn holds its price
// against the ceiling before the harness is asked.
func TestCostCeilingConcurrentReplicas(t *testing.T) {
	servertest.EachStoreReplicas(t, 2, setup(pricedByTurn()), func(t *testing.T, rs []*servertest.Server) {
		var turns []<-chan answer
		for i := range 16 {
			turns = append(turns, askAsync(rs[i%2], ownerToken, fmt.Sprintf("concurrent %d", i), ""))
		}
		for _, turn := range turns {
			if a := waitAnswer(t, turn); a.status != 200 {
				t.Fatalf("a turn failed: %d %q", a.status, a.text)
			}
		}
		paid, capped, cost := paidTurns(t, rs[0])
		t.Logf("16 concurrent turns on 2 replicas: %d paid turns, cost %d µ$ (ceiling %d µ$, %d turns)", paid, cost, ceilingMicros, paidCeiling)
		if paid < 1 || paid > paidCeiling || paid+capped != 16 || cost != int64(paid)*turnMicros {
			t.Errorf("%d paid, %d capped, cost %d µ$; want at most %d paid, the rest capped, %d µ$ a paid turn",
				paid, capped, cost, paidCeiling, turnMicros)
		}
	})
}

// replicaStores opens two stores on one state, as two replicas hold
// them: one in-process store twice, or two connections to one
// redis-server under one key prefix.
func replicaStores(t *testing.T, url string) [2]store.Store {
	t.Helper()
	prefix := testutil.Prefix(t)
	var out [2]store.Store
	for i := range out {
		if url == "" && i > 0 {
			out[i] = out[0]
			continue
		}
		st, err := stores.Open(context.Background(), stores.Options{URL: url, KeyPrefix: prefix})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		out[i] = st
	}
	return out
}

// tokenHarness answers after a while and reports usage of 100 input
// tokens: at 1,000,000 µ$ a million tokens, 100 µ$ a turn.
var tokenHarness = runtime.AgentFunc(func(ctx context.Context, turn *runtime.Turn, emit runtime.Emit) error {
	select {
	case <-time.After(100 * time.Millisecond):
	case <-ctx.Done():
		return ctx.Err()
	}
	if err := emit(runtime.Event{Type: runtime.EventAgentMetadata, Usage: &runtime.Usage{InputTokens: 100, TotalTokens: 100}}); err != nil {
		return err
	}
	return emit(runtime.Event{Type: runtime.EventTextDelta, Delta: "priced answer"})
})

// TestCostCeilingByTokens: a harness priced by tokens with maxTurnMicros
// holds that much before each turn and settles its real cost after; two
// routers on one store (two replicas) stay within the ceiling with 16
// turns at once, and a turn that costs less than its hold gives the rest
// back.
func TestCostCeilingByTokens(t *testing.T) {
	for _, c := range testutil.Stores(t) {
		t.Run(c.Name, func(t *testing.T) {
			sts := replicaStores(t, c.URL)
			cfg := config.RouterBackend{
				Harnesses: map[string]config.RouterHarness{
					"house": echo(),
					"paid": {Echo: &config.EchoBackend{}, DailyCostCeilingMicros: ceilingMicros,
						Pricing: config.RouterPricing{InputPerMTokMicros: 1_000_000, MaxTurnMicros: 150}},
				},
				House: "house", Choice: "paid",
			}
			var routers [2]*router.Router
			for i := range routers {
				r, err := router.New(router.Options{Config: cfg, Store: sts[i],
					Harnesses: map[string]runtime.Agent{"house": runtime.AgentFunc(echoAgent), "paid": tokenHarness}})
				if err != nil {
					t.Fatal(err)
				}
				routers[i] = r
			}
			var wg sync.WaitGroup
			for i := range 16 {
				wg.Go(func() {
					turn := &runtime.Turn{ResponseID: fmt.Sprintf("resp-%d", i), SessionID: "sess", UserID: "owner", Input: "hello"}
					if err := routers[i%2].Run(context.Background(), turn, func(runtime.Event) error { return nil }); err != nil {
						t.Error(err)
					}
				})
			}
			wg.Wait()
			paid, cost := storePaid(t, sts[0])
			t.Logf("16 concurrent turns on 2 routers, priced by tokens: %d paid turns, cost %d µ$ (ceiling %d µ$)", paid, cost, ceilingMicros)
			// Each turn holds 150 and costs 100: at most 2 holds fit at
			// once, and a settled turn leaves room for more.
			if paid < 1 || cost > ceilingMicros || cost != int64(paid)*turnMicros {
				t.Errorf("%d paid, cost %d µ$; want at most %d µ$, %d a paid turn", paid, cost, ceilingMicros, turnMicros)
			}
		})
	}
}

// echoAgent answers its input.
func echoAgent(_ context.Context, turn *runtime.Turn, emit runtime.Emit) error {
	return emit(runtime.Event{Type: runtime.EventTextDelta, Delta: "Echo: " + turn.Input})
}

// storePaid counts the receipts answered by paid and reads its cost.
func storePaid(t *testing.T, st store.Store) (paid int, cost int64) {
	t.Helper()
	page, err := st.ListRouterReceipts(context.Background(), "", 100, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range page.Receipts {
		if r.AnsweredBy == "paid" {
			paid++
		}
	}
	counts, err := st.RouterCounts(context.Background(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return paid, counts["cost:paid"]
}
