package storetest

import (
	"testing"
	"time"
)

// testTriggerDeliveries is the contract of inbound triggers' deliveries:
// the first to remember a delivery wins (also when several replicas try
// at once), a replay within the TTL is refused, one trigger's delivery
// IDs are not another's, a forgotten or expired delivery may be
// remembered again.
func testTriggerDeliveries(t *testing.T, h Harness) {
	s := open(t, h)
	fresh, err := s.RememberDelivery(ctx, "github", "d-1", time.Hour)
	if err != nil || !fresh {
		t.Fatalf("first delivery: fresh %v, %v", fresh, err)
	}
	if fresh, err := s.RememberDelivery(ctx, "github", "d-1", time.Hour); err != nil || fresh {
		t.Fatalf("replayed delivery: fresh %v, %v; want refused", fresh, err)
	}
	if fresh, err := s.RememberDelivery(ctx, "billing", "d-1", time.Hour); err != nil || !fresh {
		t.Fatalf("another trigger's delivery with the same ID: fresh %v, %v", fresh, err)
	}
	// IDs with the characters keys are made of stay apart.
	for _, id := range []string{"a:b", "a{b}", "a%3Ab", "a"} {
		if fresh, err := s.RememberDelivery(ctx, "odd:name", id, time.Hour); err != nil || !fresh {
			t.Fatalf("delivery %q: fresh %v, %v", id, fresh, err)
		}
	}
	if err := s.ForgetDelivery(ctx, "github", "d-1"); err != nil {
		t.Fatal(err)
	}
	if err := s.ForgetDelivery(ctx, "github", "never"); err != nil {
		t.Fatalf("forgetting an unknown delivery: %v", err)
	}
	if fresh, err := s.RememberDelivery(ctx, "github", "d-1", time.Hour); err != nil || !fresh {
		t.Fatalf("a forgotten delivery again: fresh %v, %v", fresh, err)
	}

	// Replicas remembering one delivery at once: exactly one wins.
	wins := raceWins(t, 8, func(int) (bool, error) {
		return s.RememberDelivery(ctx, "github", "race", time.Hour)
	})
	if wins != 1 {
		t.Fatalf("%d of 8 concurrent deliveries won, want 1", wins)
	}

	// Past its TTL a delivery is forgotten by itself.
	if fresh, err := s.RememberDelivery(ctx, "github", "short", 500*time.Millisecond); err != nil || !fresh {
		t.Fatalf("short delivery: fresh %v, %v", fresh, err)
	}
	h.Elapse(1200 * time.Millisecond)
	if fresh, err := s.RememberDelivery(ctx, "github", "short", time.Hour); err != nil || !fresh {
		t.Fatalf("an expired delivery again: fresh %v, %v", fresh, err)
	}
	if fresh, err := s.RememberDelivery(ctx, "github", "d-1", time.Hour); err != nil || fresh {
		t.Fatalf("an unexpired delivery after the wait: fresh %v, %v; want refused", fresh, err)
	}
}
