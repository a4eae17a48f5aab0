package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/harnest/harnest/store"
)

// The contract of the relay's wake-ups.

// relaySignalled reports whether ch is signalled within d.
func relaySignalled(ch <-chan struct{}, d time.Duration) bool {
	select {
	case <-ch:
		return true
	case <-time.After(d):
		return false
	}
}

func testRelayWakeUps(t *testing.T, h Harness) {
	st, ctx := h.Open(t, 0), context.Background()
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
	if relaySignalled(inbox, quiet) {
		t.Fatal("the inbox was woken by another participant's item")
	}
	relayOK(t, "Enqueue", st.EnqueueRelayItem(ctx, relayOwnerA, relayItem("p1", "p", now), 5))
	if !relaySignalled(inbox, 5*time.Second) {
		t.Fatal("an item did not wake the inbox")
	}
	reply, stopReply, err := st.ListenRelayItem(ctx, relayOwnerA, "p1")
	relayOK(t, "ListenRelayItem", err)
	defer stopReply()
	relayOK(t, "Reply", st.ReplyRelayItem(ctx, relayOwnerA, "p", "p1", "done", now))
	if !relaySignalled(reply, 5*time.Second) {
		t.Fatal("a reply did not wake the item's listener")
	}
	relayOK(t, "Enqueue", st.EnqueueRelayItem(ctx, relayOwnerA, relayItem("p2", "p", now), 5))
	if !relaySignalled(inbox, 5*time.Second) {
		t.Fatal("a second item did not wake the inbox")
	}
	cancelled, stopCancelled, err := st.ListenRelayItem(ctx, relayOwnerA, "p2")
	relayOK(t, "ListenRelayItem", err)
	defer stopCancelled()
	relayOK(t, "Cancel", st.CancelRelayItem(ctx, relayOwnerA, "p", "p2"))
	if !relaySignalled(cancelled, 5*time.Second) {
		t.Fatal("a cancel did not wake the item's listener")
	}

	_, err = st.SetParticipantState(ctx, relayOwnerA, "p", store.RelayPaused, now)
	relayOK(t, "pause", err)
	if !relaySignalled(inbox, 5*time.Second) {
		t.Fatal("a pause did not wake the inbox")
	}
	_, err = st.SetParticipantState(ctx, relayOwnerA, "p", store.RelayActive, now)
	relayOK(t, "resume", err)
	if !relaySignalled(inbox, 5*time.Second) {
		t.Fatal("a resume did not wake the inbox")
	}

	_, err = st.AppendRelayFeed(ctx, relayOwnerB, store.RelayFeedEntry{Participant: "b", Type: "notice", Text: "B's"})
	relayOK(t, "another owner's feed", err)
	if relaySignalled(feed, quiet) {
		t.Fatal("the feed was woken by another owner's entry")
	}
	_, err = st.AppendRelayFeed(ctx, relayOwnerA, store.RelayFeedEntry{Participant: "p", Type: "notice", Text: "A's"})
	relayOK(t, "AppendRelayFeed", err)
	if !relaySignalled(feed, 5*time.Second) {
		t.Fatal("an entry did not wake the feed")
	}

	_, err = st.DisconnectParticipant(ctx, relayOwnerA, "p", now)
	relayOK(t, "disconnect", err)
	if !relaySignalled(inbox, 5*time.Second) {
		t.Fatal("a disconnect did not wake the inbox")
	}
	// A stopped listener is not signalled.
	stopInbox()
	relayPair(t, st, relayOwnerA, "p", now, time.Hour)
	relayOK(t, "Enqueue", st.EnqueueRelayItem(ctx, relayOwnerA, relayItem("p3", "p", now), 5))
	if relaySignalled(inbox, quiet) {
		t.Fatal("a stopped listener was signalled")
	}
}
