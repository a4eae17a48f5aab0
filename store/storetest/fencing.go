package storetest

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/harnest/harnest/store"
)

// testFencing is the contract of epochs: ClaimRun hands a run to another
// replica with the next epoch, exactly once, and every write of the older
// epoch is refused with ErrFenced and changes nothing.
func testFencing(t *testing.T, h Harness) {
	subtests(t, h, map[string]func(t *testing.T, s store.Store){
		"ClaimHandsOverWhatTheClaimerNeeds":          fencingClaimHandsOverWhatTheClaimerNeeds,
		"StaleEpochWritesAreRefusedAndChangeNothing": fencingStaleEpochWritesAreRefusedAndChangeNothing,
		"ConcurrentClaimsOneWins":                    fencingConcurrentClaimsOneWins,
	})
	t.Run("FinalOrBusyRunsAreNotClaimed", func(t *testing.T) { fencingFinalOrBusyRunsAreNotClaimed(t, h) })
}

func fencingClaim(rid, claimer string) store.Claim {
	return store.Claim{User: "u", Session: "s", ResponseID: rid, Replica: "r1", Epoch: 1, Claimer: claimer, Lease: time.Minute}
}

func fencingBegun(t *testing.T, s store.Store) {
	t.Helper()
	b := beginArgs("u", "s", "resp_1", true, time.Minute)
	b.Request = []byte(`{"input":"hi"}`)
	b.Webhook = `{"url":"https://example.com/hook"}`
	if _, err := s.BeginResponse(ctx, b); err != nil {
		t.Fatal(err)
	}
	if err := s.AppendEvents(ctx, "u", "s", "resp_1", 1, evs(0, 4)); err != nil {
		t.Fatal(err)
	}
}

func fencingClaimHandsOverWhatTheClaimerNeeds(t *testing.T, s store.Store) {
	fencingBegun(t, s)
	got, err := s.ClaimRun(ctx, fencingClaim("resp_1", "r2"))
	if err != nil {
		t.Fatal(err)
	}
	if got.Epoch != 2 || string(got.Request) != `{"input":"hi"}` || got.Webhook != `{"url":"https://example.com/hook"}` ||
		string(got.Receipt) != string(inProgress) || got.LastSequence != 4 {
		t.Fatalf("claimed %+v (request %s, receipt %s)", got, got.Request, got.Receipt)
	}
	runs, err := s.RunsOf(ctx, "r2", 10)
	want := store.Lapsed{User: "u", Session: "s", ResponseID: "resp_1", Replica: "r2", Epoch: 2}
	if err != nil || len(runs) != 1 || runs[0] != want {
		t.Fatalf("runs of the claimer: %+v %v", runs, err)
	}
	if runs, _ := s.RunsOf(ctx, "r1", 10); len(runs) != 0 {
		t.Fatalf("the old holder still has the run: %+v", runs)
	}
	// The claimer holds the session: its writes go through and end the run.
	if ok, err := s.RenewLease(ctx, "u", "s", "resp_1", "r2", 2, time.Minute); !ok || err != nil {
		t.Fatalf("the claimer's renewal: %v %v", ok, err)
	}
	if err := s.AppendEvents(ctx, "u", "s", "resp_1", 2, evs(5, 6)); err != nil {
		t.Fatal(err)
	}
	err = s.CommitResponse(ctx, store.Commit{User: "u", Session: "s", ResponseID: "resp_1", Receipt: completed,
		Events: evs(7, 7), Messages: [][]byte{[]byte(`{"role":"user"}`)}, Release: true, Replica: "r2", Epoch: 2, Now: "t1"})
	if err != nil {
		t.Fatal(err)
	}
	if runs, _ := s.RunsOf(ctx, "r2", 10); len(runs) != 0 {
		t.Fatalf("a released run is still registered: %+v", runs)
	}
	// A run without a request hands back none.
	b := beginArgs("u", "s2", "resp_2", true, time.Minute)
	if _, err := s.BeginResponse(ctx, b); err != nil {
		t.Fatal(err)
	}
	c := fencingClaim("resp_2", "r2")
	c.Session = "s2"
	if got, err := s.ClaimRun(ctx, c); err != nil || got.Request != nil || got.LastSequence != -1 || got.Epoch != 2 {
		t.Fatalf("claimed %+v %v", got, err)
	}
}

func fencingStaleEpochWritesAreRefusedAndChangeNothing(t *testing.T, s store.Store) {
	fencingBegun(t, s)
	if _, err := s.ClaimRun(ctx, fencingClaim("resp_1", "r2")); err != nil {
		t.Fatal(err)
	}
	if err := s.AppendEvents(ctx, "u", "s", "resp_1", 1, evs(5, 6)); !errors.Is(err, store.ErrFenced) {
		t.Fatalf("stale append: %v", err)
	}
	if ok, err := s.RenewLease(ctx, "u", "s", "resp_1", "r1", 1, time.Minute); ok || !errors.Is(err, store.ErrFenced) {
		t.Fatalf("stale renewal: %v %v", ok, err)
	}
	if err := s.ReplaceReceipt(ctx, "u", "s", "resp_1", 1, completed); !errors.Is(err, store.ErrFenced) {
		t.Fatalf("stale receipt: %v", err)
	}
	err := s.CommitResponse(ctx, store.Commit{User: "u", Session: "s", ResponseID: "resp_1", Receipt: completed,
		Events: evs(5, 5), Messages: [][]byte{[]byte(`{"role":"user"}`)}, StateDelta: map[string]json.RawMessage{"k": json.RawMessage(`1`)}, Release: true,
		Replica: "r1", Epoch: 1, Now: "t1"})
	if !errors.Is(err, store.ErrFenced) {
		t.Fatalf("stale commit: %v", err)
	}
	if got, _, _ := s.Receipt(ctx, "u", "s", "resp_1"); string(got) != string(inProgress) {
		t.Fatalf("receipt changed: %s", got)
	}
	if got, err := s.EventsAfter(ctx, "u", "s", "resp_1", -1, 0); err != nil || !slices.Equal(sequences(got), []int{0, 1, 2, 3, 4}) {
		t.Fatalf("events %v %v", sequences(got), err)
	}
	if msgs, err := s.Messages(ctx, "u", "s", 0, 10); err != nil || len(msgs) != 0 {
		t.Fatalf("transcript %d %v", len(msgs), err)
	}
	if runs, _ := s.RunsOf(ctx, "r1", 10); len(runs) != 0 {
		t.Fatalf("a stale renewal registered the run again: %+v", runs)
	}
	// The new epoch's writes go through.
	if err := s.AppendEvents(ctx, "u", "s", "resp_1", 2, evs(5, 6)); err != nil {
		t.Fatal(err)
	}
	if err := s.ReplaceReceipt(ctx, "u", "s", "resp_1", 2, inProgress); err != nil {
		t.Fatal(err)
	}
	// A claim from a stale epoch is refused and changes nothing.
	if _, err := s.ClaimRun(ctx, fencingClaim("resp_1", "r3")); !errors.Is(err, store.ErrFenced) {
		t.Fatalf("stale claim: %v", err)
	}
	if runs, _ := s.RunsOf(ctx, "r2", 10); len(runs) != 1 {
		t.Fatalf("the holder lost its run: %+v", runs)
	}
}

func fencingConcurrentClaimsOneWins(t *testing.T, s store.Store) {
	fencingBegun(t, s)
	won := raceWins(t, 8, func(i int) (bool, error) {
		_, err := s.ClaimRun(ctx, fencingClaim("resp_1", "claimer"+string(rune('a'+i))))
		return wonUnless(err, store.ErrFenced)
	})
	if won != 1 {
		t.Fatalf("%d of 8 concurrent claims won, want 1", won)
	}
}

func fencingFinalOrBusyRunsAreNotClaimed(t *testing.T, h Harness) {
	s := open(t, h)
	fencingBegun(t, s)
	finish(t, s, "u", "s", "resp_1")
	if _, err := s.ClaimRun(ctx, fencingClaim("resp_1", "r2")); !errors.Is(err, store.ErrReceiptFinal) {
		t.Fatalf("claim of a final run: %v", err)
	}
	if got, _, _ := s.Receipt(ctx, "u", "s", "resp_1"); string(got) != string(completed) {
		t.Fatalf("receipt %s", got)
	}
	// The run lapsed and another response took the session.
	mustBegin(t, s, "u", "s2", "resp_2", true, shortLease)
	h.Elapse(lapse)
	mustBegin(t, s, "u", "s2", "resp_3", false, time.Minute)
	c := fencingClaim("resp_2", "r2")
	c.Session = "s2"
	if _, err := s.ClaimRun(ctx, c); !errors.Is(err, store.ErrSessionBusy) {
		t.Fatalf("claim of a run that lost its session: %v", err)
	}
	if err := s.AppendEvents(ctx, "u", "s2", "resp_2", 1, evs(0, 0)); err != nil {
		t.Fatalf("a refused claim changed the epoch: %v", err)
	}
}

// testReplicas is the contract of the replicas' liveness records.
func testReplicas(t *testing.T, h Harness) {
	s := open(t, h)
	now := time.Now()
	for _, id := range []string{"a", "b", "c"} {
		if err := s.Heartbeat(ctx, id, 3*time.Second, now); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := s.LapsedReplicas(ctx, now.Add(time.Second), 10); err != nil || len(got) != 0 {
		t.Fatalf("lapsed while alive: %v %v", got, err)
	}
	if err := s.Heartbeat(ctx, "b", 3*time.Second, now.Add(2*time.Second)); err != nil {
		t.Fatal(err)
	}
	later := now.Add(4 * time.Second)
	got, err := s.LapsedReplicas(ctx, later, 10)
	slices.Sort(got)
	if err != nil || !slices.Equal(got, []string{"a", "c"}) {
		t.Fatalf("lapsed %v %v", got, err)
	}
	if got, _ := s.LapsedReplicas(ctx, later, 1); len(got) != 1 {
		t.Fatalf("limit: %v", got)
	}
	// Forgetting drops only a lapsed record.
	if err := s.ForgetReplica(ctx, "a", later); err != nil {
		t.Fatal(err)
	}
	if err := s.ForgetReplica(ctx, "b", later); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.LapsedReplicas(ctx, later, 10); !slices.Equal(got, []string{"c"}) {
		t.Fatalf("after forgetting a: %v", got)
	}
	if got, _ := s.LapsedReplicas(ctx, now.Add(10*time.Second), 10); len(got) != 2 {
		t.Fatalf("b was forgotten while alive: %v", got)
	}
}
