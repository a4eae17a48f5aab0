package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/harnest/harnest/store"
)

// testRelay is the contract of the store's relay operations, by concept:
// relay_participants.go, relay_items.go, relay_limits.go, relay_feed.go
// and relay_wake.go; owner isolation, which spans them, is here.
func testRelay(t *testing.T, h Harness) {
	subtests(t, h, map[string]func(t *testing.T, s store.Store){
		"PairingOnce":        testRelayPairingOnce,
		"OwnerIsolation":     testRelayOwnerIsolation,
		"InboxOrder":         testRelayInboxOrder,
		"ReplyAndCancel":     testRelayReplyAndCancel,
		"StateAndDisconnect": testRelayStateAndDisconnect,
		"Buckets":            testRelayBuckets,
		"Feed":               testRelayFeed,
		"WakeUps":            testRelayWakeUps,
	})
	t.Run("Expiry", func(t *testing.T) { testRelayExpiry(t, h) })
}

// Owners and IDs with the characters that separate key parts, so that no
// ID can name another owner's state.
const (
	relayOwnerA = "alice:{o}%"
	relayOwnerB = "alice"
)

// relayPair creates a code of owner's and exchanges it for the participant
// id, lasting ttl from now.
func relayPair(t *testing.T, st store.Store, owner, id string, now time.Time, ttl time.Duration) store.RelayParticipant {
	t.Helper()
	ctx := context.Background()
	code := store.PairingCode{Hash: "code-" + owner + "-" + id, Owner: owner, Name: "Box " + id, Kind: "cli", ExpiresAt: now.Add(time.Minute)}
	if err := st.CreatePairingCode(ctx, code, now); err != nil {
		t.Fatalf("CreatePairingCode: %v", err)
	}
	p, err := st.ExchangePairingCode(ctx, store.Pairing{CodeHash: code.Hash, Name: code.Name, Kind: "cli",
		Description: "a test participant", ParticipantID: id, TokenHash: "token-" + owner + "-" + id, Now: now, TTL: ttl})
	if err != nil {
		t.Fatalf("ExchangePairingCode: %v", err)
	}
	return p
}

// relayItem is a pending item asked at now with a deadline a minute later.
func relayItem(id, participant string, now time.Time) store.RelayItem {
	return store.RelayItem{ID: id, Participant: participant, Text: "question " + id, AskedAt: now, DeadlineAt: now.Add(time.Minute)}
}

// relayIs fails the test unless err is want.
func relayIs(t *testing.T, what string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("%s: %v, want %v", what, err, want)
	}
}

// relayOK fails the test on an error.
func relayOK(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// relayMust returns v, panicking on an error (for reads inside
// expressions).
func relayMust[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// Owners see and change only their own participants, items, feed and
// buckets, whatever IDs they pass.
func testRelayOwnerIsolation(t *testing.T, st store.Store) {
	now := time.Now()
	relayPair(t, st, relayOwnerA, "pa", now, time.Hour)
	relayPair(t, st, relayOwnerB, "pb", now, time.Hour)
	relayOK(t, "Enqueue", st.EnqueueRelayItem(ctx, relayOwnerA, relayItem("ia", "pa", now), 5))

	// Owner B sees and changes nothing of A's.
	if _, ok, _ := st.GetParticipant(ctx, relayOwnerB, "pa", now); ok {
		t.Fatal("owner B reads A's participant")
	}
	if ps, _ := st.ListParticipants(ctx, relayOwnerB, now); len(ps) != 1 || ps[0].ID != "pb" {
		t.Fatalf("owner B lists %+v", ps)
	}
	if ok, _ := st.SetParticipantState(ctx, relayOwnerB, "pa", store.RelayPaused, now); ok {
		t.Fatal("owner B paused A's participant")
	}
	if ok, _ := st.DisconnectParticipant(ctx, relayOwnerB, "pa", now); ok {
		t.Fatal("owner B disconnected A's participant")
	}
	relayIs(t, "owner B enqueues for A's participant", st.EnqueueRelayItem(ctx, relayOwnerB, relayItem("ib", "pa", now), 5),
		store.ErrParticipantGone)
	if _, ok, _ := st.GetRelayItem(ctx, relayOwnerB, "ia"); ok {
		t.Fatal("owner B reads A's item")
	}
	if items, _ := st.PendingRelayItems(ctx, relayOwnerB, "pa", now); len(items) != 0 {
		t.Fatalf("owner B lists A's items: %+v", items)
	}
	relayIs(t, "owner B replies to A's item", st.ReplyRelayItem(ctx, relayOwnerB, "pa", "ia", "no", now), store.ErrParticipantGone)
	relayIs(t, "B's participant replies to A's item", st.ReplyRelayItem(ctx, relayOwnerB, "pb", "ia", "no", now), store.ErrRelayItemUnknown)
	relayOK(t, "Cancel", st.CancelRelayItem(ctx, relayOwnerB, "pa", "ia"))
	if _, err := st.AppendRelayFeed(ctx, relayOwnerB, store.RelayFeedEntry{Participant: "pb", Type: "notice", Text: "B's"}); err != nil {
		t.Fatal(err)
	}
	if feed, _ := st.NewestRelayFeed(ctx, relayOwnerA, 10); len(feed) != 0 {
		t.Fatalf("A's feed shows B's entries: %+v", feed)
	}
	bucket := store.RelayBucket{Owner: relayOwnerB, Name: "notice", Subject: "pa", Limit: 1, Window: time.Hour}
	st.TakeRelayBucket(ctx, bucket, now)
	bucket.Owner = relayOwnerA
	if ok, _, _ := st.TakeRelayBucket(ctx, bucket, now); !ok {
		t.Fatal("B's bucket spent A's")
	}

	// A's state is untouched.
	p, ok, _ := st.GetParticipant(ctx, relayOwnerA, "pa", now)
	if !ok || p.State != store.RelayActive {
		t.Fatalf("A's participant after B's calls: %+v %v", p, ok)
	}
	if items, _ := st.PendingRelayItems(ctx, relayOwnerA, "pa", now); len(items) != 1 || items[0].State != store.RelayItemPending {
		t.Fatalf("A's items after B's calls: %+v", items)
	}
}
