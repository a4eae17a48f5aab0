package storetest

import (
	"testing"
	"time"
)

// testExpiry is the contract of retention: receipts and event logs last
// receiptTTL after their last write; sessions, transcripts and assets stay.
// (Leases lapse in testLeases.)
func testExpiry(t *testing.T, h Harness) {
	// Redis keeps event logs at least a second (EXPIRE counts seconds).
	const ttl = time.Second
	s := h.Open(t, ttl)
	mustFillSession(t, s)
	// Another response's receipt is rewritten half-way: it lasts from then.
	if err := s.ReplaceReceipt(ctx, "u", "s", "resp_2", 1, inProgress); err != nil {
		t.Fatal(err)
	}
	h.Elapse(ttl / 2)
	if _, found, _ := s.Receipt(ctx, "u", "s", "resp_1"); !found {
		t.Fatal("a receipt expired before its TTL")
	}
	if err := s.ReplaceReceipt(ctx, "u", "s", "resp_2", 1, inProgress); err != nil {
		t.Fatal(err)
	}
	h.Elapse(ttl/2 + ttl/4)
	if _, found, _ := s.Receipt(ctx, "u", "s", "resp_1"); found {
		t.Fatal("a receipt outlived its TTL")
	}
	if got, err := s.EventsAfter(ctx, "u", "s", "resp_1", -1, 10); err != nil || len(got) != 0 {
		t.Fatalf("an event log outlived its TTL: %v %v", sequences(got), err)
	}
	if _, found, _ := s.Receipt(ctx, "u", "s", "resp_2"); !found {
		t.Fatal("a rewritten receipt expired from its first write")
	}
	if _, found, _ := s.GetSession(ctx, "u", "s"); !found {
		t.Fatal("the session expired with its receipts")
	}
	if msgs, _ := s.Messages(ctx, "u", "s", 0, 10); len(msgs) != 1 {
		t.Fatalf("the transcript expired with the receipts: %d messages", len(msgs))
	}
	if _, found, _ := s.GetAsset(ctx, "u", "s", "a"); !found {
		t.Fatal("an asset expired with the receipts")
	}
	// An expired log starts again from its next write.
	if err := s.AppendEvents(ctx, "u", "s", "resp_1", 1, evs(3, 4)); err != nil {
		t.Fatal(err)
	}
	if got, err := s.EventsAfter(ctx, "u", "s", "resp_1", 2, 10); err != nil || len(got) != 2 {
		t.Fatalf("a new log after expiry: %v %v", sequences(got), err)
	}
}
