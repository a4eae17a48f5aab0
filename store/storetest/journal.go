package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/harnest/harnest/store"
)

// testJournals is the contract of resume points: RecordPoint logs its
// events and keeps the point in one write fenced by the run's epoch; the
// replica that claims the run reads back what was recorded; the points
// expire with the receipt and go with their session.
func testJournals(t *testing.T, h Harness) {
	subtests(t, h, map[string]func(t *testing.T, s store.Store){
		"RecallAfterClaimReturnsWhatWasRecorded":      journalRecallAfterClaimReturnsWhatWasRecorded,
		"AStaleEpochsPointIsRefusedAndChangesNothing": journalAStaleEpochsPointIsRefusedAndChangesNothing,
		"DeletingTheSessionRemovesThem":               journalDeletingTheSessionRemovesThem,
	})
	t.Run("PointsExpireWithTheReceipt", func(t *testing.T) { journalPointsExpireWithTheReceipt(t, h) })
}

func journalPoint(epoch int, key, data string, seq int, events []store.Event) store.ResumePoint {
	return store.ResumePoint{User: "u", Session: "s", ResponseID: "resp_1", Epoch: epoch,
		Key: key, Data: []byte(data), Sequence: seq, Events: events}
}

func journalBegun(t *testing.T, s store.Store) {
	t.Helper()
	b := beginArgs("u", "s", "resp_1", true, time.Minute)
	b.Request = []byte(`{"input":"hi"}`)
	if _, err := s.BeginResponse(ctx, b); err != nil {
		t.Fatal(err)
	}
}

// mustRecord records the resume point, failing the test on an error.
func mustRecord(t *testing.T, s store.Store, p store.ResumePoint) {
	t.Helper()
	if err := s.RecordPoint(ctx, p); err != nil {
		t.Fatalf("record point %s of epoch %d: %v", p.Key, p.Epoch, err)
	}
}

// journalFinished begins resp_1, records its point model/0 with event 0,
// and commits it at epoch 1 with event 1, released.
func journalFinished(t *testing.T, s store.Store) {
	t.Helper()
	journalBegun(t, s)
	mustRecord(t, s, journalPoint(1, "model/0", `"a"`, 0, evs(0, 0)))
	err := s.CommitResponse(ctx, store.Commit{User: "u", Session: "s", ResponseID: "resp_1", Receipt: completed,
		Events: evs(1, 1), Release: true, Replica: "r1", Epoch: 1, Now: "t1"})
	if err != nil {
		t.Fatalf("commit resp_1: %v", err)
	}
}

func journalRecallAfterClaimReturnsWhatWasRecorded(t *testing.T, s store.Store) {
	journalBegun(t, s)
	if j, err := s.Journal(ctx, "u", "s", "resp_1"); err != nil || len(j.Points) != 0 || j.Sequence != -1 {
		t.Fatalf("a run that recorded nothing: %+v %v", j, err)
	}
	if err := s.AppendEvents(ctx, "u", "s", "resp_1", 1, evs(0, 1)); err != nil {
		t.Fatal(err)
	}
	// The point's events are logged with it.
	mustRecord(t, s, journalPoint(1, "model/0", `{"text":"a"}`, 3, evs(2, 3)))
	mustRecord(t, s, journalPoint(1, "tool/c1", `{"output":1}`, 5, evs(4, 5)))
	if got, err := s.EventsAfter(ctx, "u", "s", "resp_1", -1, 0); err != nil || len(got) != 6 || got[5].Sequence != 5 {
		t.Fatalf("the log after two points: %v %v", sequences(got), err)
	}
	// Events logged after the last point are not its.
	if err := s.AppendEvents(ctx, "u", "s", "resp_1", 1, evs(6, 8)); err != nil {
		t.Fatal(err)
	}
	claimed, err := s.ClaimRun(ctx, fencingClaim("resp_1", "r2"))
	if err != nil || claimed.LastSequence != 8 {
		t.Fatalf("claim: %+v %v", claimed, err)
	}
	j, err := s.Journal(ctx, "u", "s", "resp_1")
	if err != nil || j.Sequence != 5 || len(j.Points) != 2 ||
		string(j.Points["model/0"]) != `{"text":"a"}` || string(j.Points["tool/c1"]) != `{"output":1}` {
		t.Fatalf("journal after the claim: %+v %v", j, err)
	}
	// The claimer records on: a point under a known key replaces it,
	// and the sequence is the latest point's.
	mustRecord(t, s, journalPoint(2, "model/0", `{"text":"b"}`, 10, nil))
	mustRecord(t, s, journalPoint(2, "model/1", `{}`, 12, evs(9, 12)))
	j, err = s.Journal(ctx, "u", "s", "resp_1")
	if err != nil || j.Sequence != 12 || len(j.Points) != 3 || string(j.Points["model/0"]) != `{"text":"b"}` {
		t.Fatalf("journal after the claimer's points: %+v %v", j, err)
	}
	// Another run's journal is its own.
	if j, err := s.Journal(ctx, "u", "s", "resp_2"); err != nil || len(j.Points) != 0 || j.Sequence != -1 {
		t.Fatalf("another run's journal: %+v %v", j, err)
	}
}

func journalAStaleEpochsPointIsRefusedAndChangesNothing(t *testing.T, s store.Store) {
	journalBegun(t, s)
	mustRecord(t, s, journalPoint(1, "model/0", `"kept"`, 1, evs(0, 1)))
	if _, err := s.ClaimRun(ctx, fencingClaim("resp_1", "r2")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []store.ResumePoint{
		journalPoint(1, "model/0", `"stale"`, 3, evs(2, 3)), // the lost attempt
		journalPoint(1, "tool/c9", `"stale"`, 1, nil),
		journalPoint(3, "model/1", `"future"`, 3, evs(2, 3)), // an epoch nobody claimed
	} {
		if err := s.RecordPoint(ctx, p); !errors.Is(err, store.ErrFenced) {
			t.Fatalf("a point of epoch %d: %v, want ErrFenced", p.Epoch, err)
		}
	}
	j, err := s.Journal(ctx, "u", "s", "resp_1")
	if err != nil || len(j.Points) != 1 || string(j.Points["model/0"]) != `"kept"` || j.Sequence != 1 {
		t.Fatalf("the journal after refused points: %+v %v", j, err)
	}
	if got, _ := s.EventsAfter(ctx, "u", "s", "resp_1", -1, 0); len(got) != 2 {
		t.Fatalf("a refused point logged its events: %v", sequences(got))
	}
	// A run never begun is at its first epoch: a later one is fenced
	// and leaves nothing behind.
	p := journalPoint(2, "k", "x", 0, evs(0, 0))
	p.Session = "other"
	if err := s.RecordPoint(ctx, p); !errors.Is(err, store.ErrFenced) {
		t.Fatalf("a point of epoch 2 on a fresh run: %v", err)
	}
	if j, _ := s.Journal(ctx, "u", "other", "resp_1"); len(j.Points) != 0 {
		t.Fatalf("a refused point was kept: %+v", j)
	}
}

func journalPointsExpireWithTheReceipt(t *testing.T, h Harness) {
	const ttl = time.Second // Redis keeps keys at least a millisecond; the logs' seconds
	s := h.Open(t, ttl)
	journalFinished(t, s)
	h.Elapse(ttl / 2)
	if j, _ := s.Journal(ctx, "u", "s", "resp_1"); len(j.Points) != 1 {
		t.Fatalf("points expired before the receipt: %+v", j)
	}
	h.Elapse(ttl/2 + ttl/4)
	if _, found, _ := s.Receipt(ctx, "u", "s", "resp_1"); found {
		t.Fatal("the receipt outlived its TTL")
	}
	if j, err := s.Journal(ctx, "u", "s", "resp_1"); err != nil || len(j.Points) != 0 || j.Sequence != -1 {
		t.Fatalf("points outlived their receipt: %+v %v", j, err)
	}
}

func journalDeletingTheSessionRemovesThem(t *testing.T, s store.Store) {
	journalFinished(t, s)
	if found, err := s.DeleteSession(ctx, "u", "s"); !found || err != nil {
		t.Fatalf("delete: %v %v", found, err)
	}
	if j, err := s.Journal(ctx, "u", "s", "resp_1"); err != nil || len(j.Points) != 0 || j.Sequence != -1 {
		t.Fatalf("points outlived their session: %+v %v", j, err)
	}
}
