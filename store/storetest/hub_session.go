package storetest

import (
	"strconv"
	"testing"
	"time"

	"github.com/harnest/harnest/store"
)

// hubListenSessionResponses: ListenEvents with no response ID signals
// whenever a response of the session begins, on every replica's hub
// (a session's stream waits so for its next response); another session's
// responses do not signal it, nor do a response's events.
func hubListenSessionResponses(t *testing.T, s store.Store) {
	hub1, _ := startHub(t, s, "r1")
	hub2, _ := startHub(t, s, "r2")
	mustBegin(t, s, "u", "s", "resp_0", true, shortLease)
	finish(t, s, "u", "s", "resp_0")
	// The other session has no response yet: on a Cluster a PUBLISH
	// reaches the other masters through the cluster bus, so the signal of
	// a response begun before the listener subscribed could still arrive
	// after it, and it would be no sign of a crossed channel.
	if err := s.CreateSession(ctx, "u", "other", nil, "t0"); err != nil {
		t.Fatal(err)
	}
	sig1, _ := mustListen(t, hub1, "u", "s", "")
	sig2, _ := mustListen(t, hub2, "u", "s", "")
	other, _ := mustListen(t, hub1, "u", "other", "")
	untilBothSignalled(t, sig1, sig2, "responses began", func(i int) {
		rid := "resp_" + strconv.Itoa(i+1)
		mustBegin(t, s, "u", "s", rid, false, shortLease)
		if err := s.AppendEvents(ctx, "u", "s", rid, 1, evs(0, 0)); err != nil {
			t.Fatal(err)
		}
		finish(t, s, "u", "s", rid)
	})
	noSignal(t, other, 50*time.Millisecond, "responses of another session began (its listener)")
	// Events and the end of a response are not a new response.
	drain(sig1)
	mustBegin(t, s, "u", "s", "resp_last", false, shortLease)
	waitSignal(t, sig1, "the last response began")
	if err := s.AppendEvents(ctx, "u", "s", "resp_last", 1, evs(0, 2)); err != nil {
		t.Fatal(err)
	}
	finish(t, s, "u", "s", "resp_last")
	noSignal(t, sig1, 100*time.Millisecond, "a response's events and its end (the session's listener of new responses)")
}
