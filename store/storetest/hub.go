package storetest

import (
	"testing"
	"time"

	"github.com/harnest/harnest/store"
)

// testHub is the contract of messaging: control messages to every replica
// or to one (gone when it no longer listens), and follower signals when a
// response's events are logged or a sweeper fails it.
func testHub(t *testing.T, h Harness) {
	subtests(t, h, map[string]func(t *testing.T, s store.Store){
		"Control":                hubControl,
		"GoneReplica":            hubGoneReplica,
		"ListenSessionResponses": hubListenSessionResponses,
	})
	t.Run("ListenEvents", func(t *testing.T) { hubListenEvents(t, h, open(t, h)) })
}

// startHub starts replica's hub; its control messages arrive on the
// returned channel. It is closed when the test ends.
func startHub(t *testing.T, s store.Store, replica string) (store.Hub, chan string) {
	t.Helper()
	got := make(chan string, 16)
	hub, err := s.StartHub(ctx, replica, func(p string) { got <- p })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { hub.Close() })
	return hub, got
}

func receive(t *testing.T, got chan string, who string) string {
	t.Helper()
	select {
	case p := <-got:
		return p
	case <-time.After(5 * time.Second):
		t.Fatalf("%s received no control message within 5 s", who)
		return ""
	}
}

func hubControl(t *testing.T, s store.Store) {
	_, got1 := startHub(t, s, "r1")
	_, got2 := startHub(t, s, "r2")
	gone, err := s.SendControl(ctx, "r1", "to r1")
	if err != nil || gone {
		t.Fatalf("to a listening replica: gone=%v err=%v", gone, err)
	}
	if err := s.PublishControl(ctx, "to all"); err != nil {
		t.Fatal(err)
	}
	// In order, and r2 never saw r1's message.
	if p1, p2 := receive(t, got1, "r1"), receive(t, got1, "r1"); p1 != "to r1" || p2 != "to all" {
		t.Fatalf("r1 received %q then %q", p1, p2)
	}
	if p := receive(t, got2, "r2"); p != "to all" {
		t.Fatalf("r2 received %q first, want the message to all", p)
	}
}

// A control message to a replica that no longer listens is known to be
// lost.
func hubGoneReplica(t *testing.T, s store.Store) {
	if gone, err := s.SendControl(ctx, "never", "anyone?"); err != nil || !gone {
		t.Fatalf("to a replica that never listened: gone=%v err=%v", gone, err)
	}
	hub, got := startHub(t, s, "r1")
	if gone, err := s.SendControl(ctx, "r1", "hello"); err != nil || gone {
		t.Fatalf("to a listening replica: gone=%v err=%v", gone, err)
	}
	if p := receive(t, got, "r1"); p != "hello" {
		t.Fatalf("payload %q", p)
	}
	if err := hub.Close(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		gone, err := s.SendControl(ctx, "r1", "anyone?")
		if err != nil {
			t.Fatal(err)
		}
		if gone {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a closed replica still counted as listening after 5 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Followers are signalled wherever events are logged: AppendEvents, a
// commit with events, and a sweeper's failed receipt; on every replica's
// hub, until they stop.
func hubListenEvents(t *testing.T, h Harness, s store.Store) {
	hub1, _ := startHub(t, s, "r1")
	hub2, _ := startHub(t, s, "r2")
	mustBegin(t, s, "u", "s", "resp_1", true, shortLease)
	sig1, _ := mustListen(t, hub1, "u", "s", "resp_1")
	sig2, stop2 := mustListen(t, hub2, "u", "s", "resp_1")
	other, _ := mustListen(t, hub1, "u", "s", "resp_other")
	// AppendEvents signals both followers.
	untilBothSignalled(t, sig1, sig2, "appends", func(seq int) {
		if err := s.AppendEvents(ctx, "u", "s", "resp_1", 1, evs(seq, seq)); err != nil {
			t.Fatal(err)
		}
	})
	drain(sig1)
	drain(sig2)
	// A commit with events signals.
	last, _ := s.EventsAfter(ctx, "u", "s", "resp_1", -1, 100)
	next := len(last)
	err := s.CommitResponse(ctx, store.Commit{User: "u", Session: "s", ResponseID: "resp_1",
		Receipt: []byte(`{"status":"requires_action"}`), Events: evs(next, next), Replica: "r1"})
	if err != nil {
		t.Fatal(err)
	}
	waitSignal(t, sig1, "a commit with events")
	// A follower that stopped is signalled no more; the other still is.
	stop2()
	stop2() // stopping twice is harmless
	drain(sig2)
	// A sweeper that fails the run signals.
	h.Elapse(lapse)
	failed := func(store.Lapsed, []byte) []byte { return []byte(`{"status":"failed"}`) }
	swept, err := s.SweepLapsed(ctx, time.Now(), 10, func(store.Lapsed) bool { return true }, failed)
	if err != nil || len(swept) != 1 {
		t.Fatalf("sweep: %v %v", swept, err)
	}
	waitSignal(t, sig1, "a sweeper failed the run")
	select {
	case <-sig2:
		t.Fatal("a stopped follower was signalled")
	case <-other:
		t.Fatal("a follower of another response was signalled")
	default:
	}
}

// mustListen starts a follower of the response's events on hub (of the
// session's new responses when rid is ""); it stops when the test ends.
func mustListen(t *testing.T, hub store.Hub, user, session, rid string) (<-chan struct{}, func()) {
	t.Helper()
	sig, stop, err := hub.ListenEvents(ctx, user, session, rid)
	if err != nil {
		t.Fatalf("listen to %s/%s/%q: %v", user, session, rid, err)
	}
	t.Cleanup(stop)
	return sig, stop
}

// untilBothSignalled calls nudge(0), nudge(1), ... until both listeners,
// on two replicas' hubs, have had a signal: a Redis subscription is
// confirmed asynchronously, so nudges are repeated, a bounded number of
// times.
func untilBothSignalled(t *testing.T, sig1, sig2 <-chan struct{}, nudges string, nudge func(i int)) {
	t.Helper()
	got1, got2 := false, false
	for i := 0; !got1 || !got2; i++ {
		if i == 50 {
			t.Fatalf("after 50 %s, listener 1 signalled: %v, listener 2 (another replica's hub): %v", nudges, got1, got2)
		}
		nudge(i)
		timeout := time.After(100 * time.Millisecond)
		for waiting := true; waiting && (!got1 || !got2); {
			select {
			case <-sig1:
				got1 = true
			case <-sig2:
				got2 = true
			case <-timeout:
				waiting = false
			}
		}
	}
}
