package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/harnest/harnest/store"
)

// testAttempts is the contract of Attempts: a run's attempts are counted
// apart from its epoch. A claim moves the epoch on and hands back the
// attempts so far without spending one; SpendAttempt spends one, fenced
// by the epoch, and never on a final run; a hand-off mark, written by the
// holder's epoch, goes to the next claim only; a deleted session takes its
// runs' attempts with it.
func testAttempts(t *testing.T, h Harness) {
	subtests(t, h, map[string]func(t *testing.T, s store.Store){
		"ClaimsSpendNoAttempt":           attemptsClaimsSpendNone,
		"SpendIsFencedAndNotOnFinalRuns": attemptsSpendIsFenced,
		"GoWithTheSession":               attemptsGoWithTheSession,
		"HandOffMarkGoesToTheNextClaim":  attemptsHandOffMark,
	})
}

func attemptsHandOffMark(t *testing.T, s store.Store) {
	fencingBegun(t, s)
	if c := attemptsClaim(t, s, "r1", 1, "r2"); c.HandedOff {
		t.Fatal("a claim of a run nobody marked says it was handed off")
	}
	// Only the holder's epoch marks it.
	if err := s.MarkHandOff(ctx, "u", "s", "resp_1", 1); !errors.Is(err, store.ErrFenced) {
		t.Fatalf("a stale epoch marked the run handed off: %v", err)
	}
	if err := s.MarkHandOff(ctx, "u", "s", "resp_1", 2); err != nil {
		t.Fatal(err)
	}
	// The next claim says so and clears the mark; the one after does not.
	if c := attemptsClaim(t, s, "r2", 2, "r3"); !c.HandedOff || c.Epoch != 3 || c.Attempt != 1 {
		t.Fatalf("claim after the mark: %+v", c)
	}
	if c := attemptsClaim(t, s, "r3", 3, "r4"); c.HandedOff {
		t.Fatal("the hand-off mark outlived its claim")
	}
	err := s.CommitResponse(ctx, store.Commit{User: "u", Session: "s", ResponseID: "resp_1", Receipt: completed,
		Release: true, Replica: "r4", Epoch: 4, Now: "t1"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.MarkHandOff(ctx, "u", "s", "resp_1", 4); !errors.Is(err, store.ErrReceiptFinal) {
		t.Fatalf("a final run was marked handed off: %v", err)
	}
}

// attemptsClaim claims resp_1 of replica from at epoch, for claimer.
func attemptsClaim(t *testing.T, s store.Store, from string, epoch int, claimer string) store.Claimed {
	t.Helper()
	c, err := s.ClaimRun(ctx, store.Claim{User: "u", Session: "s", ResponseID: "resp_1", Replica: from, Epoch: epoch,
		Claimer: claimer, Lease: time.Minute})
	if err != nil {
		t.Fatalf("claim at epoch %d: %v", epoch, err)
	}
	return c
}

func attemptsClaimsSpendNone(t *testing.T, s store.Store) {
	fencingBegun(t, s)
	// Hand-offs and parking: the epoch moves on, the attempt stays 1.
	c := attemptsClaim(t, s, "r1", 1, "r2")
	if c.Epoch != 2 || c.Attempt != 1 {
		t.Fatalf("first claim: epoch %d attempt %d, want 2 and 1", c.Epoch, c.Attempt)
	}
	c = attemptsClaim(t, s, "r2", 2, "r3")
	if c.Epoch != 3 || c.Attempt != 1 {
		t.Fatalf("second claim: epoch %d attempt %d, want 3 and 1", c.Epoch, c.Attempt)
	}
	// A loss: the claimer spends an attempt at its epoch.
	n, err := s.SpendAttempt(ctx, "u", "s", "resp_1", 3)
	if err != nil || n != 2 {
		t.Fatalf("spend: %d %v, want 2", n, err)
	}
	if n, err := s.SpendAttempt(ctx, "u", "s", "resp_1", 3); err != nil || n != 3 {
		t.Fatalf("spend again: %d %v, want 3", n, err)
	}
	// The next claim hands the attempts back, unchanged.
	c = attemptsClaim(t, s, "r3", 3, "r4")
	if c.Epoch != 4 || c.Attempt != 3 {
		t.Fatalf("third claim: epoch %d attempt %d, want 4 and 3", c.Epoch, c.Attempt)
	}
}

func attemptsSpendIsFenced(t *testing.T, s store.Store) {
	fencingBegun(t, s)
	attemptsClaim(t, s, "r1", 1, "r2")
	// The first attempt's replica (epoch 1) cannot spend one.
	if _, err := s.SpendAttempt(ctx, "u", "s", "resp_1", 1); !errors.Is(err, store.ErrFenced) {
		t.Fatalf("a stale epoch spent an attempt: %v", err)
	}
	if c := attemptsClaim(t, s, "r2", 2, "r3"); c.Attempt != 1 {
		t.Fatalf("a fenced spend counted: attempt %d", c.Attempt)
	}
	// A run that is over spends none; an unknown run neither.
	err := s.CommitResponse(ctx, store.Commit{User: "u", Session: "s", ResponseID: "resp_1", Receipt: completed,
		Release: true, Replica: "r3", Epoch: 3, Now: "t1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.SpendAttempt(ctx, "u", "s", "resp_1", 3); !errors.Is(err, store.ErrReceiptFinal) {
		t.Fatalf("a final run spent an attempt: %v", err)
	}
	if _, err := s.SpendAttempt(ctx, "u", "s", "resp_unknown", 1); !errors.Is(err, store.ErrReceiptFinal) {
		t.Fatalf("an unknown run spent an attempt: %v", err)
	}
}

func attemptsGoWithTheSession(t *testing.T, s store.Store) {
	fencingBegun(t, s)
	c := attemptsClaim(t, s, "r1", 1, "r2")
	if n, err := s.SpendAttempt(ctx, "u", "s", "resp_1", c.Epoch); err != nil || n != 2 {
		t.Fatalf("spend: %d %v", n, err)
	}
	err := s.CommitResponse(ctx, store.Commit{User: "u", Session: "s", ResponseID: "resp_1", Receipt: completed,
		Release: true, Replica: "r2", Epoch: c.Epoch, Now: "t1"})
	if err != nil {
		t.Fatal(err)
	}
	if found, err := s.DeleteSession(ctx, "u", "s"); !found || err != nil {
		t.Fatalf("delete: %v %v", found, err)
	}
	// The same IDs begun again start from the first attempt.
	fencingBegun(t, s)
	if c := attemptsClaim(t, s, "r1", 1, "r2"); c.Attempt != 1 {
		t.Fatalf("a new run of a deleted session's IDs starts at attempt %d", c.Attempt)
	}
}
