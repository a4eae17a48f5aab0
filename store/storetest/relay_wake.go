package storetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/harnest/harnest/store"
)

// The contract of the relay's wake-ups.

func testRelayWakeUps(t *testing.T, st store.Store) {
	now := time.Now()
	relayPair(t, st, relayOwnerA, "p", now, time.Hour)
	relayPair(t, st, relayOwnerA, "q", now, time.Hour)
	relayPair(t, st, relayOwnerB, "b", now, time.Hour)
	inbox, stopInbox, err := st.ListenRelayInbox(ctx, relayOwnerA, "p")
	relayOK(t, "ListenRelayInbox", err)
	defer stopInbox()
	feed, stopFeed, err := st.ListenRelayFeed(ctx, relayOwnerA)
	relayOK(t, "ListenRelayFeed", err)
	defer stopFeed()
	const quiet = 100 * time.Millisecond // how long "no signal" is watched

	relayOK(t, "another participant's item", st.EnqueueRelayItem(ctx, relayOwnerA, relayItem("q1", "q", now), 5))
	noSignal(t, inbox, quiet, "another participant's item (the inbox)")
	relayOK(t, "Enqueue", st.EnqueueRelayItem(ctx, relayOwnerA, relayItem("p1", "p", now), 5))
	waitSignal(t, inbox, "an item (the inbox)")
	reply := listenRelayItem(t, st, "p1")
	relayOK(t, "Reply", st.ReplyRelayItem(ctx, relayOwnerA, "p", "p1", "done", now))
	waitSignal(t, reply, "a reply (the item's listener)")
	relayOK(t, "Enqueue", st.EnqueueRelayItem(ctx, relayOwnerA, relayItem("p2", "p", now), 5))
	waitSignal(t, inbox, "a second item (the inbox)")
	cancelled := listenRelayItem(t, st, "p2")
	relayOK(t, "Cancel", st.CancelRelayItem(ctx, relayOwnerA, "p", "p2"))
	waitSignal(t, cancelled, "a cancel (the item's listener)")

	for _, state := range []string{store.RelayPaused, store.RelayActive} {
		_, err = st.SetParticipantState(ctx, relayOwnerA, "p", state, now)
		relayOK(t, "SetParticipantState", err)
		waitSignal(t, inbox, fmt.Sprintf("the participant's state became %s (the inbox)", state))
	}

	_, err = st.AppendRelayFeed(ctx, relayOwnerB, store.RelayFeedEntry{Participant: "b", Type: "notice", Text: "B's"})
	relayOK(t, "another owner's feed", err)
	noSignal(t, feed, quiet, "another owner's entry (the feed)")
	_, err = st.AppendRelayFeed(ctx, relayOwnerA, store.RelayFeedEntry{Participant: "p", Type: "notice", Text: "A's"})
	relayOK(t, "AppendRelayFeed", err)
	waitSignal(t, feed, "an entry (the feed)")

	_, err = st.DisconnectParticipant(ctx, relayOwnerA, "p", now)
	relayOK(t, "disconnect", err)
	waitSignal(t, inbox, "a disconnect (the inbox)")
	// A stopped listener is not signalled.
	stopInbox()
	relayPair(t, st, relayOwnerA, "p", now, time.Hour)
	relayOK(t, "Enqueue", st.EnqueueRelayItem(ctx, relayOwnerA, relayItem("p3", "p", now), 5))
	noSignal(t, inbox, quiet, "an item for a stopped listener")
}

// listenRelayItem listens for owner A's item id being answered; the
// listener stops when the test ends.
func listenRelayItem(t *testing.T, st store.Store, id string) <-chan struct{} {
	t.Helper()
	sig, stop, err := st.ListenRelayItem(ctx, relayOwnerA, id)
	relayOK(t, "ListenRelayItem", err)
	t.Cleanup(stop)
	return sig
}
