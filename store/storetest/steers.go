package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/harnest/harnest/store"
)

// steersOf renders taken steers as strings.
func steersOf(taken [][]byte) []string {
	out := make([]string, len(taken))
	for i, b := range taken {
		out[i] = string(b)
	}
	return out
}

// testSteers is the contract of Steers: steers kept for a running
// response in order, taken once, by the run's current attempt only, and
// refused (keeping nothing) for a response that is final, gone or queued.
func testSteers(t *testing.T, h Harness) {
	subtests(t, h, map[string]func(t *testing.T, s store.Store){
		"KeptInOrderTakenOnce":          steersKeptInOrderTakenOnce,
		"FinalCommitSaysWhatIsLeft":     steersFinalCommitSaysWhatIsLeft,
		"RefusalsKeepNothing":           steersRefusalsKeepNothing,
		"LeftoverQueuedOnAnIdleSession": steersLeftoverQueuedOnAnIdleSession,
		"TakingIsFenced":                steersTakingIsFenced,
	})
}

func steersKeptInOrderTakenOnce(t *testing.T, s store.Store) {
	mustBegin(t, s, "u", "s", "a", true, time.Minute)
	if taken, err := s.TakeSteers(ctx, "u", "s", "a", 1); err != nil || len(taken) != 0 {
		t.Fatalf("none kept: %q %v", taken, err)
	}
	for _, steer := range []string{`{"id":"steer_1"}`, `{"id":"steer_2"}`} {
		if err := s.AppendSteer(ctx, "u", "s", "a", []byte(steer)); err != nil {
			t.Fatal(err)
		}
	}
	taken, err := s.TakeSteers(ctx, "u", "s", "a", 1)
	if got := steersOf(taken); err != nil || len(got) != 2 || got[0] != `{"id":"steer_1"}` || got[1] != `{"id":"steer_2"}` {
		t.Fatalf("taken %q %v", got, err)
	}
	if taken, err := s.TakeSteers(ctx, "u", "s", "a", 1); err != nil || len(taken) != 0 {
		t.Fatalf("taken twice: %q %v", taken, err)
	}
	// Another response's steers are its own.
	if err := s.AppendSteer(ctx, "u", "s", "a", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if taken, _ := s.TakeSteers(ctx, "u", "s", "b", 1); len(taken) != 0 {
		t.Fatalf("another response took %q", taken)
	}
}

func steersFinalCommitSaysWhatIsLeft(t *testing.T, s store.Store) {
	commit := func(rid string) bool {
		left := false
		err := s.CommitResponse(ctx, store.Commit{User: "u", Session: "s", ResponseID: rid,
			Receipt: completed, Release: true, Replica: "r1", Now: "t1", SteersLeft: &left})
		if err != nil {
			t.Fatalf("commit %s: %v", rid, err)
		}
		return left
	}
	mustBegin(t, s, "u", "s", "a", true, time.Minute)
	if commit("a") {
		t.Fatal("a response never steered has steers left")
	}
	mustBegin(t, s, "u", "s", "b", false, time.Minute)
	if err := s.AppendSteer(ctx, "u", "s", "b", []byte(`{"id":"steer_1"}`)); err != nil {
		t.Fatal(err)
	}
	if !commit("b") {
		t.Fatal("a steer nobody took is not reported left")
	}
	if taken, err := s.TakeSteers(ctx, "u", "s", "b", 1); err != nil || len(taken) != 1 {
		t.Fatalf("the steer left: %q %v", taken, err)
	}
	mustBegin(t, s, "u", "s", "c", false, time.Minute)
	if err := s.AppendSteer(ctx, "u", "s", "c", []byte(`{"id":"steer_2"}`)); err != nil {
		t.Fatal(err)
	}
	if taken, _ := s.TakeSteers(ctx, "u", "s", "c", 1); len(taken) != 1 {
		t.Fatal("the steer was not taken")
	}
	if commit("c") {
		t.Fatal("steers taken are reported left")
	}
}

func steersRefusalsKeepNothing(t *testing.T, s store.Store) {
	if err := s.AppendSteer(ctx, "u", "s", "a", []byte("x")); !errors.Is(err, store.ErrReceiptFinal) {
		t.Fatalf("no such response: %v", err)
	}
	mustBegin(t, s, "u", "s", "a", true, time.Minute)
	if err := s.QueueResponse(ctx, enqueue("u", "s", "q1")); err != nil {
		t.Fatal(err)
	}
	if err := s.AppendSteer(ctx, "u", "s", "q1", []byte("x")); !errors.Is(err, store.ErrResponseQueued) {
		t.Fatalf("a queued response: %v", err)
	}
	finish(t, s, "u", "s", "a")
	if err := s.AppendSteer(ctx, "u", "s", "a", []byte("x")); !errors.Is(err, store.ErrReceiptFinal) {
		t.Fatalf("a final response: %v", err)
	}
	for _, id := range []string{"a", "q1"} {
		if taken, err := s.TakeSteers(ctx, "u", "s", id, 1); err != nil || len(taken) != 0 {
			t.Fatalf("%s kept %q %v", id, taken, err)
		}
	}
	// Once it runs, the queued response takes steers.
	if run, found, err := s.StartQueued(ctx, "u", "s", "r2", time.Minute); err != nil || !found || run.ResponseID != "q1" {
		t.Fatalf("start %+v %v %v", run, found, err)
	}
	if err := s.AppendSteer(ctx, "u", "s", "q1", []byte("x")); err != nil {
		t.Fatalf("a started response: %v", err)
	}
}

func steersLeftoverQueuedOnAnIdleSession(t *testing.T, s store.Store) {
	mustBegin(t, s, "u", "s", "a", true, time.Minute)
	finish(t, s, "u", "s", "a")
	leftover := enqueue("u", "s", "q1")
	if err := s.QueueResponse(ctx, leftover); !errors.Is(err, store.ErrSessionIdle) {
		t.Fatalf("idle session: %v", err)
	}
	leftover.EvenIdle, leftover.Front = true, true
	if err := s.QueueResponse(ctx, leftover); err != nil {
		t.Fatalf("even idle: %v", err)
	}
	// It goes first: nothing else begins before it.
	mustBeBusy(t, s, "s", "b", "begin past the queue")
	if run, found, err := s.StartQueued(ctx, "u", "s", "r2", time.Minute); err != nil || !found || run.ResponseID != "q1" {
		t.Fatalf("start %+v %v %v", run, found, err)
	}
}

func steersTakingIsFenced(t *testing.T, s store.Store) {
	mustBegin(t, s, "u", "s", "a", true, time.Minute)
	if err := s.AppendSteer(ctx, "u", "s", "a", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ClaimRun(ctx, store.Claim{User: "u", Session: "s", ResponseID: "a", Replica: "r1", Epoch: 1, Claimer: "r2", Lease: time.Minute}); err != nil {
		t.Fatal(err)
	}
	if taken, err := s.TakeSteers(ctx, "u", "s", "a", 1); !errors.Is(err, store.ErrFenced) || len(taken) != 0 {
		t.Fatalf("the lost attempt took %q %v", taken, err)
	}
	if taken, err := s.TakeSteers(ctx, "u", "s", "a", 2); err != nil || len(taken) != 1 || string(taken[0]) != "x" {
		t.Fatalf("the claimer took %q %v", taken, err)
	}
}
