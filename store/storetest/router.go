package storetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/harnest/harnest/store"
)

// testRouter is the contract of the router's operations.
func testRouter(t *testing.T, h Harness) {
	subtests(t, h, map[string]func(t *testing.T, s store.Store){
		"Counts":             testRouterCounts,
		"CountsConcurrently": testRouterCountsConcurrently,
		"CountsGiveBack":     testRouterCountsGiveBack,
		"Breaker":            testRouterBreaker,
		"Overrides":          testRouterOverrides,
		"Receipts":           testRouterReceipts,
	})
	t.Run("ReceiptRetention", func(t *testing.T) { testRouterReceiptRetention(t, h) })
}

// routerNoon is a fixed time in the middle of a UTC day.
var routerNoon = time.Date(2026, 3, 4, 12, 0, 0, 0, time.UTC)

func testRouterCounts(t *testing.T, s store.Store) {
	for i := int64(1); i <= 2; i++ {
		n, ok, err := s.TakeRouterCount(ctx, "plan", 1, 2, routerNoon)
		if err != nil || !ok || n != i {
			t.Fatalf("take %d: %d %v %v", i, n, ok, err)
		}
	}
	if n, ok, err := s.TakeRouterCount(ctx, "plan", 1, 2, routerNoon); err != nil || ok || n != 2 {
		t.Fatalf("take past the limit: %d %v %v; want 2 false", n, ok, err)
	}
	if n, ok, err := s.TakeRouterCount(ctx, "cost:quick", 500, -1, routerNoon); err != nil || !ok || n != 500 {
		t.Fatalf("take without a limit: %d %v %v", n, ok, err)
	}
	// The next UTC day starts from zero.
	if n, ok, err := s.TakeRouterCount(ctx, "plan", 1, 2, routerNoon.Add(12*time.Hour)); err != nil || !ok || n != 1 {
		t.Fatalf("take on the next day: %d %v %v; want 1 true", n, ok, err)
	}
	counts, err := s.RouterCounts(ctx, routerNoon)
	if err != nil || counts["plan"] != 2 || counts["cost:quick"] != 500 || len(counts) != 2 {
		t.Fatalf("counts: %v %v", counts, err)
	}
	if counts, err := s.RouterCounts(ctx, routerNoon.Add(-24*time.Hour)); err != nil || len(counts) != 0 {
		t.Fatalf("counts of a day without turns: %v %v", counts, err)
	}
}

func testRouterCountsConcurrently(t *testing.T, s store.Store) {
	taken := raceWins(t, 20, func(int) (bool, error) {
		_, ok, err := s.TakeRouterCount(ctx, "owner", 1, 7, routerNoon)
		return ok, err
	})
	if taken != 7 {
		t.Fatalf("%d of 20 concurrent takes within a limit of 7 succeeded", taken)
	}
}

// testRouterCountsGiveBack: a hold taken within a limit and given back
// (a negative by) frees its room; a settle above the hold is counted
// whatever the limit. This is how the router holds a turn's cost against
// its ceiling before the turn and settles it after.
func testRouterCountsGiveBack(t *testing.T, s store.Store) {
	if n, ok, err := s.TakeRouterCount(ctx, "cost:h", 250, 300, routerNoon); err != nil || !ok || n != 250 {
		t.Fatalf("hold: %d %v %v", n, ok, err)
	}
	if n, ok, err := s.TakeRouterCount(ctx, "cost:h", 100, 300, routerNoon); err != nil || ok || n != 250 {
		t.Fatalf("a hold past the limit: %d %v %v; want 250 false", n, ok, err)
	}
	if n, ok, err := s.TakeRouterCount(ctx, "cost:h", -150, -1, routerNoon); err != nil || !ok || n != 100 {
		t.Fatalf("give back: %d %v %v; want 100 true", n, ok, err)
	}
	if n, ok, err := s.TakeRouterCount(ctx, "cost:h", 100, 300, routerNoon); err != nil || !ok || n != 200 {
		t.Fatalf("a hold in the room given back: %d %v %v; want 200 true", n, ok, err)
	}
	if n, ok, err := s.TakeRouterCount(ctx, "cost:h", 150, -1, routerNoon); err != nil || !ok || n != 350 {
		t.Fatalf("a settle past the limit: %d %v %v; want 350 true", n, ok, err)
	}
	if n, ok, err := s.TakeRouterCount(ctx, "cost:h", -350, 300, routerNoon); err != nil || !ok || n != 0 {
		t.Fatalf("give back everything: %d %v %v; want 0 true", n, ok, err)
	}
}

func testRouterBreaker(t *testing.T, s store.Store) {
	b := store.RouterBreakerPolicy{Failures: 2, Window: time.Minute, CoolDown: 2 * time.Minute, TrialTimeout: 10 * time.Second}
	now := routerNoon
	admit := func(want bool, wantState string) {
		t.Helper()
		ok, st, err := s.AdmitRouterHarness(ctx, "h", b, now)
		if err != nil || ok != want || st != wantState {
			t.Fatalf("admit at %s: %v %q %v; want %v %q", now.Sub(routerNoon), ok, st, err, want, wantState)
		}
	}
	report := func(ok bool, wantState string) {
		t.Helper()
		st, err := s.ReportRouterHarness(ctx, "h", b, ok, now)
		if err != nil || st != wantState {
			t.Fatalf("report %v at %s: %q %v; want %q", ok, now.Sub(routerNoon), st, err, wantState)
		}
	}
	admit(true, store.RouterClosed)
	report(false, store.RouterClosed)
	now = now.Add(90 * time.Second) // the first failure leaves the window
	report(false, store.RouterClosed)
	now = now.Add(time.Second)
	report(false, store.RouterOpen) // two within the window
	admit(false, store.RouterOpen)
	if st, err := s.RouterBreakerState(ctx, "h", b, now); err != nil || st != store.RouterOpen {
		t.Fatalf("state: %q %v", st, err)
	}
	if ok, _, _ := s.AdmitRouterHarness(ctx, "other", b, now); !ok {
		t.Fatal("another harness's breaker is open too")
	}
	now = now.Add(2 * time.Minute) // cool-down over: one trial
	admit(true, store.RouterHalfOpen)
	admit(false, store.RouterHalfOpen)
	report(false, store.RouterOpen) // the trial failed: open again
	admit(false, store.RouterOpen)
	now = now.Add(2 * time.Minute)
	admit(true, store.RouterHalfOpen)
	now = now.Add(11 * time.Second) // the trial never reported: it lapses
	admit(true, store.RouterHalfOpen)
	report(true, store.RouterClosed)
	admit(true, store.RouterClosed)
	report(false, store.RouterClosed) // the failures were forgotten
}

func testRouterOverrides(t *testing.T, s store.Store) {
	o, err := s.RouterOverrides(ctx)
	if err != nil || o.Choice != nil || o.DailyTurns != nil || o.Allowed != nil || len(o.Paused) != 0 {
		t.Fatalf("fresh overrides: %+v %v", o, err)
	}
	choice, fallback, daily, allowed := "home", "tell_me", 5, []string{"home", "quick"}
	err = s.SetRouterOverrides(ctx, store.RouterOverrides{Choice: &choice, Fallback: &fallback, DailyTurns: &daily,
		Allowed: &allowed, Paused: map[string]bool{"home": true, "quick": true}})
	if err != nil {
		t.Fatal(err)
	}
	turns := "expertise"
	if err := s.SetRouterOverrides(ctx, store.RouterOverrides{OwnerTurns: &turns, Paused: map[string]bool{"quick": false}}); err != nil {
		t.Fatal(err)
	}
	o, err = s.RouterOverrides(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprintf("%v %v %v %v %v %v %v", *o.Choice, *o.Fallback, *o.DailyTurns, *o.Allowed, *o.OwnerTurns, o.VisitorTurns, o.Paused)
	if want := "home tell_me 5 [home quick] expertise <nil> map[home:true]"; got != want {
		t.Fatalf("overrides: %s; want %s", got, want)
	}
}

func routerReceipt(i int, at time.Time) store.RouterReceipt {
	return store.RouterReceipt{At: at, ResponseID: fmt.Sprintf("resp_%02d", i), SessionID: "s", User: "u",
		Choice: "home", AnsweredBy: "quick", Reason: "harness_timeout",
		Rungs: []store.RouterRung{{Name: "home", Reason: "harness_timeout"}, {Name: "quick"}}, WaitMs: 8000, TotalMs: 8010, CostMicros: 3}
}

func testRouterReceipts(t *testing.T, s store.Store) {
	now := time.Now().UTC().Truncate(time.Millisecond)
	for i := range 5 {
		// Two share a millisecond: the response ID orders them.
		if err := s.AddRouterReceipt(ctx, routerReceipt(i, now.Add(time.Duration(i/2)*time.Millisecond))); err != nil {
			t.Fatal(err)
		}
	}
	var ids []string
	cursor := ""
	for range 5 {
		page, err := s.ListRouterReceipts(ctx, cursor, 2, now)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range page.Receipts {
			ids = append(ids, r.ResponseID)
		}
		if cursor = page.Next; cursor == "" {
			break
		}
	}
	if got := fmt.Sprint(ids); got != "[resp_04 resp_03 resp_02 resp_01 resp_00]" {
		t.Fatalf("pages, newest first: %s", got)
	}
	page, err := s.ListRouterReceipts(ctx, "", 1, now)
	if err != nil || len(page.Receipts) != 1 {
		t.Fatal(page, err)
	}
	got, want := page.Receipts[0], routerReceipt(4, now.Add(2*time.Millisecond))
	if fmt.Sprint(got) != fmt.Sprint(want) || !got.At.Equal(want.At) {
		t.Fatalf("receipt read back:\n got %+v\nwant %+v", got, want)
	}
}

func testRouterReceiptRetention(t *testing.T, h Harness) {
	s := h.Open(t, time.Hour)
	now := time.Now().UTC()
	for i, at := range []time.Time{now.Add(-2 * time.Hour), now.Add(-time.Minute)} {
		if err := s.AddRouterReceipt(ctx, routerReceipt(i, at)); err != nil {
			t.Fatal(err)
		}
	}
	page, err := s.ListRouterReceipts(ctx, "", 10, now)
	if err != nil || len(page.Receipts) != 1 || page.Receipts[0].ResponseID != "resp_01" {
		t.Fatalf("past the retention a receipt is gone: %+v %v", page, err)
	}
	if page, err := s.ListRouterReceipts(ctx, "", 10, now.Add(time.Hour)); err != nil || len(page.Receipts) != 0 {
		t.Fatalf("an hour on, none is listed: %+v %v", page, err)
	}
}
