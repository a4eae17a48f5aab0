package storetest

import (
	"slices"
	"testing"
	"time"
)

// testLiveReplicas is the contract of LiveReplicas: the replicas whose
// liveness record lapses after now, the set a replica that shuts down
// looks at before it hands its runs off. A replica that hands off marks
// its own record lapsed (a heartbeat that ended a moment ago), and leaves
// the set at once.
func testLiveReplicas(t *testing.T, h Harness) {
	s := open(t, h)
	now := time.Now()
	if got, err := s.LiveReplicas(ctx, now, 10); err != nil || len(got) != 0 {
		t.Fatalf("live replicas of an empty store: %v %v", got, err)
	}
	for _, id := range []string{"a", "b", "c"} {
		if err := s.Heartbeat(ctx, id, 3*time.Second, now); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.LiveReplicas(ctx, now.Add(time.Second), 10)
	slices.Sort(got)
	if err != nil || !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Fatalf("live %v %v", got, err)
	}
	if got, _ := s.LiveReplicas(ctx, now.Add(time.Second), 2); len(got) != 2 {
		t.Fatalf("limit: %v", got)
	}
	// b hands off: its record lapsed a moment ago; it is lapsed at once.
	if err := s.Heartbeat(ctx, "b", -time.Millisecond, now); err != nil {
		t.Fatal(err)
	}
	got, _ = s.LiveReplicas(ctx, now, 10)
	slices.Sort(got)
	if !slices.Equal(got, []string{"a", "c"}) {
		t.Fatalf("live after b lapsed: %v", got)
	}
	if got, _ := s.LapsedReplicas(ctx, now, 10); !slices.Equal(got, []string{"b"}) {
		t.Fatalf("lapsed after b lapsed: %v", got)
	}
	// A record that lapses exactly at now is not live.
	if got, _ := s.LiveReplicas(ctx, now.Add(3*time.Second), 10); len(got) != 0 {
		t.Fatalf("live at their lapse: %v", got)
	}
}
