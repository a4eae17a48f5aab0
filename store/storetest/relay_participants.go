package storetest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/harnest/harnest/store"
)

// The contract of pairing codes, participants and their session tokens.

func testRelayPairingOnce(t *testing.T, st store.Store) {
	now := time.Now()
	code := store.PairingCode{Hash: "c1", Owner: relayOwnerA, Name: "My CLI", Kind: "cli", ExpiresAt: now.Add(5 * time.Minute)}
	relayOK(t, "CreatePairingCode", st.CreatePairingCode(ctx, code, now))
	x := store.Pairing{CodeHash: "c1", Name: "My CLI", Kind: "codex", ParticipantID: "p1", TokenHash: "t1", Now: now, TTL: 8 * time.Hour}
	_, err := st.ExchangePairingCode(ctx, x)
	relayIs(t, "a card of another kind", err, store.ErrPairingMismatch)
	x.Kind, x.Description = "cli", "Local assistant"
	x.Look = store.RelayLook{Look: "dots-purple", Line: "#a774e2", Background: "#f4ecfd", DisplayName: "Plum ✨"}
	p, err := st.ExchangePairingCode(ctx, x) // a mismatch keeps the code
	relayOK(t, "ExchangePairingCode", err)
	want := store.RelayParticipant{ID: "p1", Owner: relayOwnerA, Name: "My CLI", Kind: "cli", Description: "Local assistant",
		State: store.RelayActive, PairedAt: time.UnixMilli(now.UnixMilli()).UTC(),
		ExpiresAt: time.UnixMilli(now.Add(8 * time.Hour).UnixMilli()).UTC(), TokenHash: "t1", Look: x.Look}
	if !relaySameParticipant(p, want) {
		t.Fatalf("participant %+v, want %+v", p, want)
	}
	// The look is kept with the participant: every read returns it, and
	// pausing does not lose it.
	if ps, err := st.ListParticipants(ctx, relayOwnerA, now); err != nil || len(ps) != 1 || !relaySameParticipant(ps[0], want) {
		t.Fatalf("ListParticipants: %+v %v, want the participant with its look", ps, err)
	}
	if ok, err := st.SetParticipantState(ctx, relayOwnerA, "p1", store.RelayPaused, now); err != nil || !ok {
		t.Fatalf("pause: %v %v", ok, err)
	}
	if got, _, _ := st.GetParticipant(ctx, relayOwnerA, "p1", now); got.Look != want.Look {
		t.Fatalf("look after a pause %+v, want %+v", got.Look, want.Look)
	}
	relayOK(t, "resume", relayErr(st.SetParticipantState(ctx, relayOwnerA, "p1", store.RelayActive, now)))
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

// relaySameParticipant compares two participants, their times as
// instants.
func relaySameParticipant(a, b store.RelayParticipant) bool {
	return a.ID == b.ID && a.Owner == b.Owner && a.Name == b.Name && a.Kind == b.Kind && a.Description == b.Description &&
		a.State == b.State && a.PairedAt.Equal(b.PairedAt) && a.ExpiresAt.Equal(b.ExpiresAt) && a.TokenHash == b.TokenHash &&
		a.Look == b.Look
}

// relayErr keeps the error of a (found, error) result.
func relayErr(_ bool, err error) error { return err }

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

func testRelayStateAndDisconnect(t *testing.T, st store.Store) {
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

// relayParticipantIDs lists the participants' IDs, space-separated.
func relayParticipantIDs(ps []store.RelayParticipant) string {
	ids := make([]string, len(ps))
	for i, p := range ps {
		ids[i] = p.ID
	}
	return strings.Join(ids, " ")
}
