package storetest

import (
	"strings"
	"testing"
	"time"

	"github.com/harnest/harnest/store"
)

// The contract of relay items: a participant's inbox, replies and
// cancellations.

func testRelayInboxOrder(t *testing.T, st store.Store) {
	now := time.Now()
	relayPair(t, st, relayOwnerA, "p", now, time.Hour)
	relayPair(t, st, relayOwnerA, "other", now, time.Hour)
	for i, id := range []string{"z", "a", "m"} { // asked in this order, IDs in another
		at := now.Add(time.Duration(i) * time.Millisecond)
		relayOK(t, "Enqueue "+id, st.EnqueueRelayItem(ctx, relayOwnerA, relayItem(id, "p", at), 4))
	}
	short := store.RelayItem{ID: "short", Participant: "p", Text: "soon", AskedAt: now.Add(3 * time.Millisecond),
		DeadlineAt: now.Add(time.Second)}
	relayOK(t, "Enqueue short", st.EnqueueRelayItem(ctx, relayOwnerA, short, 4))
	relayIs(t, "a fifth item over four", st.EnqueueRelayItem(ctx, relayOwnerA, relayItem("x", "p", now), 4), store.ErrInboxFull)
	relayOK(t, "another participant's item", st.EnqueueRelayItem(ctx, relayOwnerA, relayItem("o", "other", now), 4))

	items, err := st.PendingRelayItems(ctx, relayOwnerA, "p", now.Add(10*time.Millisecond))
	relayOK(t, "PendingRelayItems", err)
	if ids := relayItemIDs(items); ids != "z a m short" {
		t.Fatalf("pending %q, want in the order asked", ids)
	}
	want := relayItem("z", "p", now)
	if z := items[0]; z.Text != want.Text || z.Participant != "p" || z.State != store.RelayItemPending ||
		!z.AskedAt.Equal(time.UnixMilli(now.UnixMilli())) || !z.DeadlineAt.Equal(time.UnixMilli(want.DeadlineAt.UnixMilli())) {
		t.Fatalf("item %+v", z)
	}
	// Past its deadline an item is not pending and does not count.
	later := now.Add(2 * time.Second)
	if ids := relayItemIDs(relayMust(st.PendingRelayItems(ctx, relayOwnerA, "p", later))); ids != "z a m" {
		t.Fatalf("pending after a deadline %q", ids)
	}
	next := relayItem("n", "p", later)
	relayOK(t, "an item in the place of an expired one", st.EnqueueRelayItem(ctx, relayOwnerA, next, 4))
}

// relayItemIDs lists the items' IDs, space-separated.
func relayItemIDs(items []store.RelayItem) string {
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = it.ID
	}
	return strings.Join(ids, " ")
}

func testRelayReplyAndCancel(t *testing.T, st store.Store) {
	now := time.Now()
	relayPair(t, st, relayOwnerA, "p", now, time.Hour)
	relayPair(t, st, relayOwnerA, "q", now, time.Hour)
	for _, id := range []string{"i1", "i2", "i3", "i4"} {
		relayOK(t, "Enqueue", st.EnqueueRelayItem(ctx, relayOwnerA, relayItem(id, "p", now), 5))
	}
	relayOK(t, "Reply", st.ReplyRelayItem(ctx, relayOwnerA, "p", "i1", "Four.", now))
	it, ok, err := st.GetRelayItem(ctx, relayOwnerA, "i1")
	if err != nil || !ok || it.State != store.RelayItemAnswered || it.Reply != "Four." {
		t.Fatalf("answered item %+v %v %v", it, ok, err)
	}
	relayIs(t, "a second reply", st.ReplyRelayItem(ctx, relayOwnerA, "p", "i1", "again", now), store.ErrRelayItemAnswered)
	relayIs(t, "an unknown item", st.ReplyRelayItem(ctx, relayOwnerA, "p", "nope", "x", now), store.ErrRelayItemUnknown)
	relayIs(t, "another participant's item", st.ReplyRelayItem(ctx, relayOwnerA, "q", "i2", "x", now), store.ErrRelayItemUnknown)
	relayIs(t, "past the deadline", st.ReplyRelayItem(ctx, relayOwnerA, "p", "i2", "late", now.Add(time.Minute)), store.ErrRelayItemExpired)

	relayOK(t, "Cancel", st.CancelRelayItem(ctx, relayOwnerA, "p", "i3"))
	if it, _, _ := st.GetRelayItem(ctx, relayOwnerA, "i3"); it.State != store.RelayItemCancelled {
		t.Fatalf("cancelled item %+v", it)
	}
	relayIs(t, "a reply to a cancelled item", st.ReplyRelayItem(ctx, relayOwnerA, "p", "i3", "x", now), store.ErrRelayItemExpired)
	relayOK(t, "Cancel an answered item", st.CancelRelayItem(ctx, relayOwnerA, "p", "i1"))
	if it, _, _ := st.GetRelayItem(ctx, relayOwnerA, "i1"); it.State != store.RelayItemAnswered || it.Reply != "Four." {
		t.Fatalf("cancel changed an answered item: %+v", it)
	}
	relayOK(t, "Cancel an unknown item", st.CancelRelayItem(ctx, relayOwnerA, "p", "nope"))
	if _, ok, _ := st.GetRelayItem(ctx, relayOwnerA, "nope"); ok {
		t.Fatal("cancelling an unknown item made one")
	}
	if ids := relayItemIDs(relayMust(st.PendingRelayItems(ctx, relayOwnerA, "p", now))); ids != "i2 i4" {
		t.Fatalf("pending after reply and cancel %q", ids)
	}

	_, err = st.SetParticipantState(ctx, relayOwnerA, "p", store.RelayPaused, now)
	relayOK(t, "pause", err)
	relayIs(t, "a reply while paused", st.ReplyRelayItem(ctx, relayOwnerA, "p", "i4", "x", now), store.ErrParticipantPaused)
	_, err = st.DisconnectParticipant(ctx, relayOwnerA, "p", now)
	relayOK(t, "disconnect", err)
	relayIs(t, "a reply after disconnect", st.ReplyRelayItem(ctx, relayOwnerA, "p", "i4", "x", now), store.ErrParticipantGone)
}
