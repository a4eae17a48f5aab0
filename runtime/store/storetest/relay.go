package storetest

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/harnest/harnest/runtime/store"
)

// testRelay is the contract of the store's relay operations.
func testRelay(t *testing.T, h Harness) {
	t.Run("PairingOnce", func(t *testing.T) { testRelayPairingOnce(t, h) })
	t.Run("Expiry", func(t *testing.T) { testRelayExpiry(t, h) })
	t.Run("OwnerIsolation", func(t *testing.T) { testRelayOwnerIsolation(t, h) })
	t.Run("InboxOrder", func(t *testing.T) { testRelayInboxOrder(t, h) })
	t.Run("ReplyAndCancel", func(t *testing.T) { testRelayReplyAndCancel(t, h) })
	t.Run("StateAndDisconnect", func(t *testing.T) { testRelayStateAndDisconnect(t, h) })
	t.Run("Buckets", func(t *testing.T) { testRelayBuckets(t, h) })
	t.Run("Feed", func(t *testing.T) { testRelayFeed(t, h) })
	t.Run("WakeUps", func(t *testing.T) { testRelayWakeUps(t, h) })
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

// relayItem is a pending relayItem asked at now with a deadline a minute later.
func relayItem(id, participant string, now time.Time) store.RelayItem {
	return store.RelayItem{ID: id, Participant: participant, Text: "question " + id, AskedAt: now, DeadlineAt: now.Add(time.Minute)}
}

func relayIs(t *testing.T, what string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("%s: %v, want %v", what, err, want)
	}
}

func relayOK(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func testRelayPairingOnce(t *testing.T, h Harness) {
	st, ctx := h.Open(t, 0), context.Background()
	now := time.Now()
	code := store.PairingCode{Hash: "c1", Owner: relayOwnerA, Name: "My CLI", Kind: "cli", ExpiresAt: now.Add(5 * time.Minute)}
	relayOK(t, "CreatePairingCode", st.CreatePairingCode(ctx, code, now))
	x := store.Pairing{CodeHash: "c1", Name: "My CLI", Kind: "codex", ParticipantID: "p1", TokenHash: "t1", Now: now, TTL: 8 * time.Hour}
	_, err := st.ExchangePairingCode(ctx, x)
	relayIs(t, "a card of another kind", err, store.ErrPairingMismatch)
	x.Kind, x.Description = "cli", "Local assistant"
	p, err := st.ExchangePairingCode(ctx, x) // a mismatch keeps the code
	relayOK(t, "ExchangePairingCode", err)
	want := store.RelayParticipant{ID: "p1", Owner: relayOwnerA, Name: "My CLI", Kind: "cli", Description: "Local assistant",
		State: store.RelayActive, PairedAt: time.UnixMilli(now.UnixMilli()).UTC(),
		ExpiresAt: time.UnixMilli(now.Add(8 * time.Hour).UnixMilli()).UTC(), TokenHash: "t1"}
	if !relaySameParticipant(p, want) {
		t.Fatalf("participant %+v, want %+v", p, want)
	}
	x.ParticipantID, x.TokenHash = "p2", "t2"
	_, err = st.ExchangePairingCode(ctx, x)
	relayIs(t, "a used code", err, store.ErrPairingInvalid)
	_, err = st.ExchangePairingCode(ctx, store.Pairing{CodeHash: "nope", Name: "My CLI", Kind: "cli", ParticipantID: "p3",
		TokenHash: "t3", Now: now, TTL: time.Hour})
	relayIs(t, "an unknown code", err, store.ErrPairingInvalid)

	got, ok, err := st.ParticipantByToken(ctx, "t1", now)
	if err != nil || !ok || !relaySameParticipant(got, want) {
		t.Fatalf("ParticipantByToken: %+v %v %v", got, ok, err)
	}
	if _, ok, err := st.ParticipantByToken(ctx, "t2", now); err != nil || ok {
		t.Fatalf("the refused exchange made a session: %v %v", ok, err)
	}
	got, ok, err = st.GetParticipant(ctx, relayOwnerA, "p1", now)
	if err != nil || !ok || !relaySameParticipant(got, want) {
		t.Fatalf("GetParticipant: %+v %v %v", got, ok, err)
	}
	if _, ok, _ := st.GetParticipant(ctx, relayOwnerA, "p2", now); ok {
		t.Fatal("the refused exchange made a participant")
	}
}

func relaySameParticipant(a, b store.RelayParticipant) bool {
	return a.ID == b.ID && a.Owner == b.Owner && a.Name == b.Name && a.Kind == b.Kind && a.Description == b.Description &&
		a.State == b.State && a.PairedAt.Equal(b.PairedAt) && a.ExpiresAt.Equal(b.ExpiresAt) && a.TokenHash == b.TokenHash
}

func testRelayExpiry(t *testing.T, h Harness) {
	st, ctx := h.Open(t, 0), context.Background()
	const ttl = 300 * time.Millisecond
	now := time.Now()
	relayOK(t, "CreatePairingCode", st.CreatePairingCode(ctx, store.PairingCode{Hash: "short", Owner: relayOwnerA, Name: "A",
		Kind: "cli", ExpiresAt: now.Add(ttl)}, now))
	brief := relayPair(t, st, relayOwnerA, "brief", now, ttl)
	// The caller's clock decides: at the expiry, nothing is live any more.
	at := now.Add(ttl)
	if _, ok, _ := st.GetParticipant(ctx, relayOwnerA, "brief", at); ok {
		t.Fatal("GetParticipant finds a participant at its expiry")
	}
	if _, ok, _ := st.ParticipantByToken(ctx, brief.TokenHash, at); ok {
		t.Fatal("ParticipantByToken finds a participant at its expiry")
	}
	relayIs(t, "an item for an expired participant", st.EnqueueRelayItem(ctx, relayOwnerA, relayItem("i1", "brief", at), 5),
		store.ErrParticipantGone)

	// And once the time has passed for the store too.
	h.Elapse(ttl + 100*time.Millisecond)
	now = time.Now()
	_, err := st.ExchangePairingCode(ctx, store.Pairing{CodeHash: "short", Name: "A", Kind: "cli", ParticipantID: "late",
		TokenHash: "late", Now: now, TTL: time.Hour})
	relayIs(t, "an expired code", err, store.ErrPairingInvalid)
	if _, ok, _ := st.ParticipantByToken(ctx, brief.TokenHash, now); ok {
		t.Fatal("an expired session token still finds its participant")
	}
	if ps, err := st.ListParticipants(ctx, relayOwnerA, now); err != nil || len(ps) != 0 {
		t.Fatalf("expired participants listed: %+v %v", ps, err)
	}
	if ok, err := st.SetParticipantState(ctx, relayOwnerA, "brief", store.RelayPaused, now); err != nil || ok {
		t.Fatalf("an expired participant paused: %v %v", ok, err)
	}
	if ok, err := st.DisconnectParticipant(ctx, relayOwnerA, "brief", now); err != nil || ok {
		t.Fatalf("an expired participant disconnected: %v %v", ok, err)
	}
	if err := st.CreatePairingCode(ctx, store.PairingCode{Hash: "past", Owner: relayOwnerA, Name: "A", Kind: "cli",
		ExpiresAt: now.Add(-time.Second)}, now); err == nil {
		t.Fatal("a code that expired before it was made was stored")
	}
}

func testRelayOwnerIsolation(t *testing.T, h Harness) {
	st, ctx := h.Open(t, 0), context.Background()
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

func testRelayInboxOrder(t *testing.T, h Harness) {
	st, ctx := h.Open(t, 0), context.Background()
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
	// Past its deadline an relayItem is not pending and does not count.
	later := now.Add(2 * time.Second)
	if ids := relayItemIDs(relayMust(st.PendingRelayItems(ctx, relayOwnerA, "p", later))); ids != "z a m" {
		t.Fatalf("pending after a deadline %q", ids)
	}
	next := relayItem("n", "p", later)
	relayOK(t, "an item in the place of an expired one", st.EnqueueRelayItem(ctx, relayOwnerA, next, 4))
}

func relayMust[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func relayItemIDs(items []store.RelayItem) string {
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = it.ID
	}
	return strings.Join(ids, " ")
}

func testRelayReplyAndCancel(t *testing.T, h Harness) {
	st, ctx := h.Open(t, 0), context.Background()
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

func testRelayStateAndDisconnect(t *testing.T, h Harness) {
	st, ctx := h.Open(t, 0), context.Background()
	now := time.Now()
	first := relayPair(t, st, relayOwnerA, "b", now, time.Hour)
	relayPair(t, st, relayOwnerA, "a", now, time.Hour)                        // paired at the same time: by ID
	relayPair(t, st, relayOwnerA, "c", now.Add(-time.Millisecond), time.Hour) // paired earlier
	ps, err := st.ListParticipants(ctx, relayOwnerA, now)
	relayOK(t, "ListParticipants", err)
	if ids := relayParticipantIDs(ps); ids != "c a b" {
		t.Fatalf("participants %q, want oldest pairing first, then by ID", ids)
	}
	if ok, err := st.SetParticipantState(ctx, relayOwnerA, "b", store.RelayPaused, now); err != nil || !ok {
		t.Fatalf("pause: %v %v", ok, err)
	}
	if p, _, _ := st.GetParticipant(ctx, relayOwnerA, "b", now); p.State != store.RelayPaused {
		t.Fatalf("paused participant %+v", p)
	}
	relayIs(t, "an item while paused", st.EnqueueRelayItem(ctx, relayOwnerA, relayItem("i", "b", now), 5), store.ErrParticipantPaused)
	if _, err := st.SetParticipantState(ctx, relayOwnerA, "b", "sleeping", now); err == nil {
		t.Fatal("an unknown state was accepted")
	}
	if ok, _ := st.SetParticipantState(ctx, relayOwnerA, "b", store.RelayActive, now); !ok {
		t.Fatal("resume failed")
	}
	relayOK(t, "an item once resumed", st.EnqueueRelayItem(ctx, relayOwnerA, relayItem("i", "b", now), 5))

	if ok, err := st.DisconnectParticipant(ctx, relayOwnerA, "b", now); err != nil || !ok {
		t.Fatalf("disconnect: %v %v", ok, err)
	}
	if ok, _ := st.DisconnectParticipant(ctx, relayOwnerA, "b", now); ok {
		t.Fatal("a second disconnect found the participant")
	}
	if _, ok, _ := st.ParticipantByToken(ctx, first.TokenHash, now); ok {
		t.Fatal("the session token outlived its participant")
	}
	if items, _ := st.PendingRelayItems(ctx, relayOwnerA, "b", now); len(items) != 0 {
		t.Fatalf("the inbox outlived its participant: %+v", items)
	}
	if ids := relayParticipantIDs(relayMust(st.ListParticipants(ctx, relayOwnerA, now))); ids != "c a" {
		t.Fatalf("participants after disconnect %q", ids)
	}
}

func relayParticipantIDs(ps []store.RelayParticipant) string {
	ids := make([]string, len(ps))
	for i, p := range ps {
		ids[i] = p.ID
	}
	return strings.Join(ids, " ")
}

func testRelayBuckets(t *testing.T, h Harness) {
	st, ctx := h.Open(t, 0), context.Background()
	// 20 s into a minute, so the window ends in 40 s.
	now := time.UnixMilli(time.Now().UnixMilli()/60_000*60_000 + 20_000)
	b := store.RelayBucket{Owner: relayOwnerA, Name: "poll", Subject: "p:1", Limit: 3, Window: time.Minute}
	for i := 0; i < 3; i++ {
		if ok, _, err := st.TakeRelayBucket(ctx, b, now); err != nil || !ok {
			t.Fatalf("request %d: %v %v", i+1, ok, err)
		}
	}
	ok, wait, err := st.TakeRelayBucket(ctx, b, now)
	if err != nil || ok || wait != 40*time.Second {
		t.Fatalf("the fourth request: %v, wait %v, %v; want refused for 40s", ok, wait, err)
	}
	other := b
	other.Subject = "p:2"
	if ok, _, _ := st.TakeRelayBucket(ctx, other, now); !ok {
		t.Fatal("another subject's bucket is spent")
	}
	server := b
	server.Owner = ""
	if ok, _, _ := st.TakeRelayBucket(ctx, server, now); !ok {
		t.Fatal("the server's bucket is the owner's")
	}
	if ok, _, _ := st.TakeRelayBucket(ctx, b, now.Add(40*time.Second)); !ok {
		t.Fatal("the next window is spent")
	}

	ok, wait, err = st.SpaceRelaySay(ctx, relayOwnerA, "p", 5*time.Second, now)
	if err != nil || !ok {
		t.Fatalf("first say: %v %v", ok, err)
	}
	ok, wait, _ = st.SpaceRelaySay(ctx, relayOwnerA, "p", 5*time.Second, now.Add(2*time.Second))
	if ok || wait != 3*time.Second {
		t.Fatalf("a say 2 s later: %v, wait %v; want refused for 3s", ok, wait)
	}
	if ok, _, _ := st.SpaceRelaySay(ctx, relayOwnerA, "q", 5*time.Second, now.Add(2*time.Second)); !ok {
		t.Fatal("another participant's say was spaced")
	}
	if ok, _, _ := st.SpaceRelaySay(ctx, relayOwnerA, "p", 5*time.Second, now.Add(5*time.Second)); !ok {
		t.Fatal("a say after the gap was refused")
	}
}

func testRelayFeed(t *testing.T, h Harness) {
	st, ctx := h.Open(t, 0), context.Background()
	if id, err := st.LastRelayFeedID(ctx, relayOwnerA); err != nil || id != "0-0" {
		t.Fatalf("empty feed's last ID %q %v", id, err)
	}
	if feed, err := st.RelayFeedAfter(ctx, relayOwnerA, "0-0", 10); err != nil || len(feed) != 0 {
		t.Fatalf("empty feed: %+v %v", feed, err)
	}
	entries := []store.RelayFeedEntry{
		{Participant: "p", Name: "Box", Kind: "cli", Type: "notice", Text: "The tests passed.", At: "2026-01-02T03:04:05.000Z"},
		{Participant: "p", Name: "Box", Kind: "cli", Type: "stage", Item: []byte(`{"type":"gesture","name":"wave"}`), At: "x"},
		{Participant: "p", Name: "Box", Kind: "cli", Type: "notice", Text: "Third.", At: "y"},
	}
	var ids []string
	for _, e := range entries {
		id, err := st.AppendRelayFeed(ctx, relayOwnerA, e)
		relayOK(t, "AppendRelayFeed", err)
		ids = append(ids, id)
	}
	for i, id := range ids {
		if !relayValidFeedID(id) || i > 0 && !relayFeedIDAfter(id, ids[i-1]) {
			t.Fatalf("feed IDs %v: want increasing \"<ms>-<seq>\"", ids)
		}
	}
	if last, _ := st.LastRelayFeedID(ctx, relayOwnerA); last != ids[2] {
		t.Fatalf("last ID %q, want %q", last, ids[2])
	}
	newest, err := st.NewestRelayFeed(ctx, relayOwnerA, 2)
	relayOK(t, "NewestRelayFeed", err)
	if len(newest) != 2 || newest[0].ID != ids[2] || newest[1].ID != ids[1] {
		t.Fatalf("newest two %+v", newest)
	}
	if e := newest[1]; e.Type != "stage" || string(e.Item) != `{"type":"gesture","name":"wave"}` || e.Participant != "p" ||
		e.Name != "Box" || e.Kind != "cli" || e.At != "x" || e.Text != "" {
		t.Fatalf("stage entry %+v", e)
	}
	after, err := st.RelayFeedAfter(ctx, relayOwnerA, ids[0], 10)
	relayOK(t, "RelayFeedAfter", err)
	if len(after) != 2 || after[0].ID != ids[1] || after[1].ID != ids[2] || after[1].Text != "Third." {
		t.Fatalf("after the first %+v", after)
	}
	if after, _ := st.RelayFeedAfter(ctx, relayOwnerA, "0-0", 1); len(after) != 1 || after[0].ID != ids[0] ||
		after[0].At != entries[0].At || after[0].Text != entries[0].Text {
		t.Fatalf("the first one %+v", after)
	}
	if after, _ := st.RelayFeedAfter(ctx, relayOwnerA, ids[2], 10); len(after) != 0 {
		t.Fatalf("after the last %+v", after)
	}

	// The feed is bounded: the newest RelayFeedMax entries are kept.
	for i := 0; i < store.RelayFeedMax+20; i++ {
		_, err := st.AppendRelayFeed(ctx, relayOwnerA, store.RelayFeedEntry{Participant: "p", Type: "notice", Text: strconv.Itoa(i)})
		relayOK(t, "AppendRelayFeed", err)
	}
	newest, err = st.NewestRelayFeed(ctx, relayOwnerA, store.RelayFeedMax)
	relayOK(t, "NewestRelayFeed", err)
	if len(newest) != store.RelayFeedMax || newest[0].Text != strconv.Itoa(store.RelayFeedMax+19) ||
		newest[store.RelayFeedMax-1].Text != "20" {
		t.Fatalf("the newest %d of the bounded feed: %d entries, from %q to %q", store.RelayFeedMax, len(newest),
			newest[0].Text, newest[len(newest)-1].Text)
	}
}

func relayValidFeedID(id string) bool {
	a, b, ok := strings.Cut(id, "-")
	_, e1 := strconv.ParseUint(a, 10, 64)
	_, e2 := strconv.ParseUint(b, 10, 64)
	return ok && e1 == nil && e2 == nil
}

func relayFeedIDAfter(id, prev string) bool {
	var a1, a2, b1, b2 uint64
	fmt.Sscanf(id, "%d-%d", &a1, &a2)
	fmt.Sscanf(prev, "%d-%d", &b1, &b2)
	return a1 > b1 || a1 == b1 && a2 > b2
}

// relaySignalled reports whether ch is relaySignalled within d.
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
