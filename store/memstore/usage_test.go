package memstore

import (
	"context"
	"testing"
	"time"

	"github.com/harnest/harnest/store"
)

// A scope's days older than store.UsageRetention go when it first adds to
// a later day; days within it stay, and another user's are not touched.
func TestUsageDropsDaysPastRetention(t *testing.T) {
	ctx := context.Background()
	s := New(Options{})
	defer s.Close()
	first := time.Date(2025, 1, 10, 12, 0, 0, 0, time.UTC)
	line := []store.UsageLine{{Backend: "echo", Turns: 1}}
	for _, user := range []string{"ann", "bob"} {
		if err := s.AddUsage(ctx, user, first, line); err != nil {
			t.Fatal(err)
		}
	}
	within := first.Add(store.UsageRetention - 24*time.Hour)
	past := first.Add(store.UsageRetention + 24*time.Hour)
	days := func(user string, everyone bool) int {
		got, err := s.ReadUsage(ctx, store.UsageQuery{User: user, Everyone: everyone,
			Days: []string{store.UsageDate(first), store.UsageDate(within), store.UsageDate(past)}})
		if err != nil {
			t.Fatal(err)
		}
		return len(got)
	}
	if err := s.AddUsage(ctx, "ann", within, line); err != nil {
		t.Fatal(err)
	}
	if n := days("ann", false); n != 2 {
		t.Fatalf("ann has %d days after a day within the retention, want 2 (nothing dropped)", n)
	}
	if err := s.AddUsage(ctx, "ann", past, line); err != nil {
		t.Fatal(err)
	}
	if n := days("ann", false); n != 2 {
		t.Fatalf("ann has %d days after a day past the retention, want 2 (the first dropped)", n)
	}
	if n := days("", true); n != 2 {
		t.Fatalf("everyone has %d days, want 2 (the first dropped)", n)
	}
	if n := days("bob", false); n != 1 {
		t.Fatalf("bob has %d days, want 1 (his own first day is his until he adds again)", n)
	}
}
