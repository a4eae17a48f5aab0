package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/harnest/harnest/store"
)

// testWaitsHeldByNoReplica is the contract of waits whose turn lives in
// the store only: a suspended run is claimed like any other (its wait stays
// pending), an answer is stored whether or not a replica holds the run and
// tells the run's epoch to claim it at, and the turn's wait writes
// (FinishWait) are fenced by that epoch.
func testWaitsHeldByNoReplica(t *testing.T, h Harness) {
	claimAt := func(epoch int, replica, claimer string, lease time.Duration) store.Claim {
		return store.Claim{User: "u", Session: "s", ResponseID: "resp_1", Replica: replica, Epoch: epoch, Claimer: claimer, Lease: lease}
	}
	subtests(t, h, map[string]func(t *testing.T, s store.Store){
		"ClaimingASuspendedRunKeepsItsWait": func(t *testing.T, s store.Store) {
			suspend(t, s, "u", "s", "resp_1", approval("apr_1"))
			got, err := s.ClaimRun(ctx, claimAt(1, "r1", "r2", time.Minute))
			if err != nil || got.Epoch != 2 || string(got.Receipt) != `{"status":"requires_action"}` || got.LastSequence != 0 {
				t.Fatalf("claim of a suspended run: %+v (receipt %s) %v", got, got.Receipt, err)
			}
			w, found, err := s.GetWait(ctx, "u", "apr_1")
			if err != nil || !found || w.Status != store.WaitPending || w.Epoch != 2 {
				t.Fatalf("wait after the claim: %+v %v %v, want pending at epoch 2", w, found, err)
			}
			if r, _, _ := s.ReadWait(ctx, "u", "s", "apr_1"); r.Epoch != 2 {
				t.Fatalf("read wait's epoch %d, want 2", r.Epoch)
			}
		},
		"AnsweredWithNoHolder": func(t *testing.T, s store.Store) {
			suspend(t, s, "u", "s", "resp_1", approval("apr_1"))
			// Handed to nobody that renews it: the session's lease lapses.
			if _, err := s.ClaimRun(ctx, claimAt(1, "r1", "nobody", 50*time.Millisecond)); err != nil {
				t.Fatal(err)
			}
			time.Sleep(200 * time.Millisecond)
			w, current, err := s.ResolveWait(ctx, "u", "apr_1", store.WaitApproval, store.WaitApproved, nil, time.Now())
			if err != nil || current != store.WaitApproved || w.Status != store.WaitApproved || w.Epoch != 2 || w.ResponseID != "resp_1" {
				t.Fatalf("answer with no holder: %+v %q %v, want approved at epoch 2", w, current, err)
			}
			if got, _, _ := s.GetWait(ctx, "u", "apr_1"); got.Status != store.WaitApproved {
				t.Fatalf("the answer was not stored: %+v", got)
			}
			// Whoever answered claims the run at that epoch.
			claimed, err := s.ClaimRun(ctx, claimAt(w.Epoch, "nobody", "r3", time.Minute))
			if err != nil || claimed.Epoch != 3 {
				t.Fatalf("claim after the answer: %+v %v", claimed, err)
			}
		},
		"FinishWaitFenced": func(t *testing.T, s store.Store) {
			suspend(t, s, "u", "s", "resp_1", approval("apr_1"))
			if _, err := s.ClaimRun(ctx, claimAt(1, "r1", "r2", time.Minute)); err != nil {
				t.Fatal(err)
			}
			for _, status := range []string{store.WaitExpired, store.WaitCanceled} {
				if err := s.FinishWait(ctx, "u", "s", "resp_1", "apr_1", status, 1); !errors.Is(err, store.ErrFenced) {
					t.Fatalf("the lost attempt's FinishWait(%s): %v, want ErrFenced", status, err)
				}
			}
			if got, _, _ := s.GetWait(ctx, "u", "apr_1"); got.Status != store.WaitPending {
				t.Fatalf("a fenced FinishWait changed the wait: %+v", got)
			}
			if err := s.FinishWait(ctx, "u", "s", "resp_1", "apr_1", store.WaitExpired, 2); err != nil {
				t.Fatalf("the claimer's FinishWait: %v", err)
			}
			if got, _, _ := s.GetWait(ctx, "u", "apr_1"); got.Status != store.WaitExpired {
				t.Fatalf("the claimer's FinishWait did not expire the wait: %+v", got)
			}
		},
		"FinishWaitOfAnotherResponse": func(t *testing.T, s store.Store) {
			suspend(t, s, "u", "s", "resp_1", approval("apr_1"))
			if err := s.FinishWait(ctx, "u", "s", "resp_other", "apr_1", store.WaitCanceled, 1); err != nil {
				t.Fatal(err)
			}
			if got, _, _ := s.GetWait(ctx, "u", "apr_1"); got.Status != store.WaitPending {
				t.Fatalf("another response finished the wait: %+v", got)
			}
		},
	})
}
