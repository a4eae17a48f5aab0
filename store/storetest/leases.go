package storetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/harnest/harnest/store"
)

// shortLease is a lease that lapses within a test: Elapse(lapse) passes
// it with room to spare.
const (
	shortLease = 300 * time.Millisecond
	lapse      = 500 * time.Millisecond
)

// testLeases is the contract of the session lease: one response at a time,
// renewed by its holder, lapsing when not renewed, taken again by its
// holder when nobody else took it.
func testLeases(t *testing.T, h Harness) {
	subtests(t, h, map[string]func(t *testing.T, s store.Store){
		"OneResponseAtATime":      leasesOneResponseAtATime,
		"ConcurrentBeginsOneWins": leasesConcurrentBeginsOneWins,
	})
	harnessSubtests(t, h, map[string]func(t *testing.T, h Harness){
		"Lapses":                      leasesLapses,
		"RenewalExtends":              leasesRenewalExtends,
		"HolderRetakesALapsedLease":   leasesHolderRetakesALapsedLease,
		"CommitAfterALapseNobodyTook": leasesCommitAfterALapseNobodyTook,
		"NoRetakeOverAFinalReceipt":   leasesNoRetakeOverAFinalReceipt,
		"CommitIntoADeletedSession":   commitIntoADeletedSession,
	})
}

func leasesOneResponseAtATime(t *testing.T, s store.Store) {
	mustBegin(t, s, "u", "s", "resp_1", true, time.Minute)
	mustBeBusy(t, s, "s", "resp_2", "second begin")
	// Other sessions of the user, and other users, are not held.
	mustBegin(t, s, "u", "s2", "resp_3", true, time.Minute)
	mustBegin(t, s, "v", "s", "resp_4", true, time.Minute)
	if ok, err := s.RenewLease(ctx, "u", "s", "resp_1", "r1", 1, time.Minute); !ok || err != nil {
		t.Fatalf("holder could not renew: %v %v", ok, err)
	}
	if ok, _ := s.RenewLease(ctx, "u", "s", "resp_2", "r1", 1, time.Minute); ok {
		t.Fatal("non-holder renewed")
	}
	finish(t, s, "u", "s", "resp_1")
	mustBegin(t, s, "u", "s", "resp_2", false, time.Minute)
}

func leasesConcurrentBeginsOneWins(t *testing.T, s store.Store) {
	if err := s.CreateSession(ctx, "u", "s", nil, "t"); err != nil {
		t.Fatal(err)
	}
	const racers = 8
	won := raceWins(t, racers, func(i int) (bool, error) {
		_, err := s.BeginResponse(ctx, beginArgs("u", "s", fmt.Sprintf("resp_%d", i), false, time.Minute))
		return wonUnless(err, store.ErrSessionBusy)
	})
	if won != 1 {
		t.Fatalf("%d of %d concurrent begins took the session, want 1", won, racers)
	}
}

// lapsedLease opens a store in which response resp_1 created session u/s
// and its lease has lapsed.
func lapsedLease(t *testing.T, h Harness) store.Store {
	t.Helper()
	s := open(t, h)
	mustBegin(t, s, "u", "s", "resp_1", true, shortLease)
	h.Elapse(lapse)
	return s
}

func leasesLapses(t *testing.T, h Harness) {
	s := lapsedLease(t, h)
	// Lapsed: another response takes the session, and the first one's
	// steps and renewals are refused.
	mustBegin(t, s, "u", "s", "resp_2", false, time.Minute)
	err := s.CommitResponse(ctx, store.Commit{User: "u", Session: "s", ResponseID: "resp_1", Receipt: completed, Release: true, Replica: "r1"})
	if !errors.Is(err, store.ErrLeaseLost) {
		t.Fatalf("commit of a response that lost its session: %v, want ErrLeaseLost", err)
	}
	if ok, _ := s.RenewLease(ctx, "u", "s", "resp_1", "r1", 1, time.Minute); ok {
		t.Fatal("a response renewed a lease another one took")
	}
	if got, _, _ := s.Receipt(ctx, "u", "s", "resp_1"); string(got) != string(inProgress) {
		t.Fatalf("a refused commit wrote the receipt: %s", got)
	}
}

func leasesRenewalExtends(t *testing.T, h Harness) {
	s := open(t, h)
	mustBegin(t, s, "u", "s", "resp_1", true, shortLease)
	if ok, err := s.RenewLease(ctx, "u", "s", "resp_1", "r1", 1, time.Minute); !ok || err != nil {
		t.Fatalf("renew: %v %v", ok, err)
	}
	h.Elapse(lapse)
	mustBeBusy(t, s, "s", "resp_2", "begin after a renewal past the first lease")
}

func leasesHolderRetakesALapsedLease(t *testing.T, h Harness) {
	s := lapsedLease(t, h)
	// Nobody took it: the holder's renewal takes it again (a replica
	// that lived through a store outage).
	if ok, err := s.RenewLease(ctx, "u", "s", "resp_1", "r1", 1, time.Minute); !ok || err != nil {
		t.Fatalf("renew of a lapsed, free lease: %v %v", ok, err)
	}
	mustBeBusy(t, s, "s", "resp_2", "second response on a held session")
}

func leasesCommitAfterALapseNobodyTook(t *testing.T, h Harness) {
	s := lapsedLease(t, h)
	err := s.CommitResponse(ctx, store.Commit{User: "u", Session: "s", ResponseID: "resp_1", Receipt: completed,
		Messages: [][]byte{[]byte(`{"id":"m"}`)}, Release: true, Replica: "r1"})
	if err != nil {
		t.Fatalf("commit after a lapse nobody took: %v", err)
	}
	if got, _, _ := s.Receipt(ctx, "u", "s", "resp_1"); string(got) != string(completed) {
		t.Fatalf("receipt %s", got)
	}
	mustBegin(t, s, "u", "s", "resp_2", false, time.Minute)
}

func leasesNoRetakeOverAFinalReceipt(t *testing.T, h Harness) {
	s := lapsedLease(t, h)
	// A sweeper records the lapsed run as failed.
	if err := s.ReplaceReceipt(ctx, "u", "s", "resp_1", 1, []byte(`{"status":"failed","error":{"code":"replica_lost"}}`)); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.RenewLease(ctx, "u", "s", "resp_1", "r1", 1, time.Minute); ok || err != nil {
		t.Fatalf("renewal over a final receipt: %v %v", ok, err)
	}
	err := s.CommitResponse(ctx, store.Commit{User: "u", Session: "s", ResponseID: "resp_1", Receipt: completed, Release: true, Replica: "r1"})
	if !errors.Is(err, store.ErrReceiptFinal) {
		t.Fatalf("commit over a final receipt: %v, want ErrReceiptFinal", err)
	}
	mustBegin(t, s, "u", "s", "resp_2", false, time.Minute)
}

// A session deleted after its response's lease lapsed stays deleted: the
// response's late commit is refused with ErrLeaseLost and writes nothing
// (no session record, state, transcript, events, receipt or wait), and
// its renewal cannot take the lease of the gone session.
func commitIntoADeletedSession(t *testing.T, h Harness) {
	s := lapsedLease(t, h)
	if found, err := s.DeleteSession(ctx, "u", "s"); !found || err != nil {
		t.Fatalf("delete once the lease lapsed: %v %v", found, err)
	}
	w := approval("apr_1")
	w.ResponseID = "resp_1"
	for _, release := range []bool{false, true} {
		err := s.CommitResponse(ctx, store.Commit{User: "u", Session: "s", ResponseID: "resp_1", Receipt: completed,
			Events: evs(0, 1), Messages: [][]byte{[]byte(`{"id":"m1"}`)},
			StateDelta: map[string]json.RawMessage{"k": json.RawMessage(`1`)}, Wait: &w, Release: release, Replica: "r1", Now: "t9"})
		if !errors.Is(err, store.ErrLeaseLost) {
			t.Fatalf("commit (release %v) into a deleted session: %v, want ErrLeaseLost", release, err)
		}
	}
	if ok, err := s.RenewLease(ctx, "u", "s", "resp_1", "r1", 1, time.Minute); ok || err != nil {
		t.Fatalf("renewal in a deleted session: %v %v, want false", ok, err)
	}
	if _, found, _ := s.GetSession(ctx, "u", "s"); found {
		t.Fatal("a refused commit made a session record")
	}
	if ok, _ := s.SessionExists(ctx, "u", "s"); ok {
		t.Fatal("a refused commit made the session exist")
	}
	if rows, _ := s.ListSessions(ctx, "u", "", 10); len(rows) != 0 {
		t.Fatalf("a refused commit listed the session: %+v", rows)
	}
	if _, found, _ := s.Receipt(ctx, "u", "s", "resp_1"); found {
		t.Fatal("a refused commit wrote the receipt")
	}
	if got, _ := s.EventsAfter(ctx, "u", "s", "resp_1", -1, 10); len(got) != 0 {
		t.Fatalf("a refused commit wrote events: %v", sequences(got))
	}
	if _, found, _ := s.GetWait(ctx, "u", "apr_1"); found {
		t.Fatal("a refused commit wrote the wait")
	}
	// The session's ID starts from scratch, and a new response holds it.
	if err := s.CreateSession(ctx, "u", "s", nil, "t2"); err != nil {
		t.Fatal(err)
	}
	got, found, _ := s.GetSession(ctx, "u", "s")
	if !found || len(got.State) != 0 || got.CreatedAt != "t2" || got.UpdatedAt != "t2" {
		t.Fatalf("the new session: %+v %v", got, found)
	}
	if msgs, _ := s.Messages(ctx, "u", "s", 0, 10); len(msgs) != 0 {
		t.Fatalf("a refused commit wrote the transcript: %d messages", len(msgs))
	}
	mustBegin(t, s, "u", "s", "resp_2", false, time.Minute)
}
