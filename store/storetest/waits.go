package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/harnest/harnest/store"
)

// testWaits is the contract of waits: recorded with a requires_action
// commit, found by ID alone in the user's index, resolved exactly once,
// expired past their time, unavailable once their response is gone, and
// readable a while after they are resolved.
func testWaits(t *testing.T, h Harness) {
	subtests(t, h, map[string]func(t *testing.T, s store.Store){
		"RecordedAndFound":         waitRecordedAndFound,
		"ResolvedOnce":             waitResolvedOnce,
		"ConcurrentAnswersOneWins": waitConcurrentAnswers,
		"ClientToolOutput":         waitClientToolOutput,
		"ApprovalAnswer":           waitApprovalAnswer,
		"Expired":                  waitExpired,
		"Unavailable":              waitUnavailable,
		"Finish":                   waitFinish,
		"GoneWithTheirSession":     waitGoneWithTheirSession,
	})
}

// suspend begins response rid in the user's new session and commits a
// requires_action step that waits for w (its ResponseID is set).
func suspend(t *testing.T, s store.Store, user, session, rid string, w store.Wait) store.Wait {
	t.Helper()
	mustBegin(t, s, user, session, rid, true, time.Minute)
	w.ResponseID = rid
	err := s.CommitResponse(ctx, store.Commit{User: user, Session: session, ResponseID: rid,
		Receipt: []byte(`{"status":"requires_action"}`), Events: evs(0, 0), Wait: &w, Replica: "r1", Now: "t"})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func approval(id string) store.Wait {
	return store.Wait{ID: id, Kind: store.WaitApproval, ExpiresAt: time.Now().Add(15 * time.Minute).Truncate(time.Millisecond),
		AfterSequence: 7, Replica: "replica-9"}
}

func waitRecordedAndFound(t *testing.T, s store.Store) {
	want := suspend(t, s, "u", "s", "resp_1", approval("apr_1"))
	got, found, err := s.GetWait(ctx, "u", "apr_1")
	if err != nil || !found {
		t.Fatalf("get: %v %v", found, err)
	}
	if got.ID != "apr_1" || got.Kind != store.WaitApproval || got.ResponseID != "resp_1" || got.Session != "s" ||
		got.Status != store.WaitPending || !got.ExpiresAt.Equal(want.ExpiresAt) || got.AfterSequence != 7 ||
		got.Replica != "replica-9" || len(got.Output) != 0 {
		t.Fatalf("wait %+v, want %+v", got, want)
	}
	read, found, err := s.ReadWait(ctx, "u", "s", "apr_1")
	if err != nil || !found || read.ID != got.ID || read.Status != got.Status || read.ResponseID != got.ResponseID {
		t.Fatalf("read: %+v %v %v", read, found, err)
	}
	// The user's own: not found by others, nor in another session.
	if _, found, _ := s.GetWait(ctx, "v", "apr_1"); found {
		t.Fatal("another user found the wait")
	}
	if _, found, _ := s.ReadWait(ctx, "u", "s2", "apr_1"); found {
		t.Fatal("the wait was read in another session")
	}
	if _, found, _ := s.GetWait(ctx, "u", "apr_none"); found {
		t.Fatal("a missing wait was found")
	}
}

func waitResolvedOnce(t *testing.T, s store.Store) {
	suspend(t, s, "u", "s", "resp_1", approval("apr_1"))
	// A wait is resolved by its kind only.
	if w, current, err := s.ResolveWait(ctx, "u", "apr_1", store.WaitClientTool, store.WaitDone, []byte(`1`), time.Now()); w.ID != "" || current != "" || err != nil {
		t.Fatalf("resolving an approval as a client tool: %+v %q %v", w, current, err)
	}
	if w, _, err := s.ResolveWait(ctx, "v", "apr_1", store.WaitApproval, store.WaitApproved, nil, time.Now()); w.ID != "" || err != nil {
		t.Fatalf("another user resolved the wait: %+v %v", w, err)
	}
	w, current, err := s.ResolveWait(ctx, "u", "apr_1", store.WaitApproval, store.WaitApproved, nil, time.Now())
	if err != nil || current != store.WaitApproved || w.Status != store.WaitApproved || w.ResponseID != "resp_1" || w.Session != "s" {
		t.Fatalf("resolve: %+v %q %v", w, current, err)
	}
	// The second answer is refused with the status the first gave, and
	// the resolved wait stays readable (a tombstone: 409, not 404).
	w, current, err = s.ResolveWait(ctx, "u", "apr_1", store.WaitApproval, store.WaitDenied, nil, time.Now())
	if !errors.Is(err, store.ErrWaitResolved) || current != store.WaitApproved || w.ID != "apr_1" {
		t.Fatalf("second resolve: %+v %q %v, want ErrWaitResolved approved", w, current, err)
	}
	if got, found, _ := s.GetWait(ctx, "u", "apr_1"); !found || got.Status != store.WaitApproved {
		t.Fatalf("resolved wait: %+v %v", got, found)
	}
}

func waitConcurrentAnswers(t *testing.T, s store.Store) {
	suspend(t, s, "u", "s", "resp_1", approval("apr_1"))
	const answers = 8
	// Every answer but the winner is refused with ErrWaitResolved: any
	// other error fails the test.
	won := raceWins(t, answers, func(i int) (bool, error) {
		status := store.WaitApproved
		if i%2 == 1 {
			status = store.WaitDenied
		}
		_, _, err := s.ResolveWait(ctx, "u", "apr_1", store.WaitApproval, status, nil, time.Now())
		return wonUnless(err, store.ErrWaitResolved)
	})
	if won != 1 {
		t.Fatalf("%d of %d answers won, want 1 (the others refused)", won, answers)
	}
}

func waitClientToolOutput(t *testing.T, s store.Store) {
	w := approval("tool_1")
	w.Kind = store.WaitClientTool
	suspend(t, s, "u", "s", "resp_1", w)
	output := []byte(`{"lat":1.5}`)
	got, current, err := s.ResolveWait(ctx, "u", "tool_1", store.WaitClientTool, store.WaitDone, output, time.Now())
	if err != nil || current != store.WaitDone || string(got.Output) != `{"lat":1.5}` {
		t.Fatalf("submit: %+v %q %v", got, current, err)
	}
	copy(output, `{"lat":9.9}`)
	read, found, _ := s.ReadWait(ctx, "u", "s", "tool_1")
	if !found || read.Status != store.WaitDone || string(read.Output) != `{"lat":1.5}` {
		t.Fatalf("the holder reads %+v %v", read, found)
	}
}

// An answer after the wait's time is refused, and the wait is expired
// from then on.
func waitExpired(t *testing.T, s store.Store) {
	w := approval("apr_1")
	w.ExpiresAt = time.Now().Add(time.Second).Truncate(time.Millisecond)
	suspend(t, s, "u", "s", "resp_1", w)
	_, current, err := s.ResolveWait(ctx, "u", "apr_1", store.WaitApproval, store.WaitApproved, nil, w.ExpiresAt)
	if !errors.Is(err, store.ErrWaitResolved) || current != store.WaitExpired {
		t.Fatalf("answer at the expiry: %q %v, want ErrWaitResolved expired", current, err)
	}
	if got, found, _ := s.GetWait(ctx, "u", "apr_1"); !found || got.Status != store.WaitExpired {
		t.Fatalf("expired wait: %+v %v", got, found)
	}
	if _, current, err := s.ResolveWait(ctx, "u", "apr_1", store.WaitApproval, store.WaitApproved, nil, time.Now()); !errors.Is(err, store.ErrWaitResolved) || current != store.WaitExpired {
		t.Fatalf("answer after the expiry: %q %v", current, err)
	}
}

// A wait whose response is over (its receipt final) cannot be answered.
func waitUnavailable(t *testing.T, s store.Store) {
	suspend(t, s, "u", "s", "resp_1", approval("apr_1"))
	finish(t, s, "u", "s", "resp_1") // the response ended without the wait
	w, current, err := s.ResolveWait(ctx, "u", "apr_1", store.WaitApproval, store.WaitApproved, nil, time.Now())
	if !errors.Is(err, store.ErrWaitUnavailable) || current != store.WaitPending || w.ID != "apr_1" {
		t.Fatalf("answer to a gone response: %+v %q %v, want ErrWaitUnavailable", w, current, err)
	}
	if got, _, _ := s.GetWait(ctx, "u", "apr_1"); got.Status != store.WaitPending {
		t.Fatalf("a refused answer changed the wait: %+v", got)
	}
}

func waitFinish(t *testing.T, s store.Store) {
	suspend(t, s, "u", "s", "resp_1", approval("apr_1"))
	if err := s.FinishWait(ctx, "u", "s", "resp_1", "apr_1", store.WaitCanceled, 1); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := s.GetWait(ctx, "u", "apr_1"); got.Status != store.WaitCanceled {
		t.Fatalf("finished wait: %+v", got)
	}
	if _, current, err := s.ResolveWait(ctx, "u", "apr_1", store.WaitApproval, store.WaitApproved, nil, time.Now()); !errors.Is(err, store.ErrWaitResolved) || current != store.WaitCanceled {
		t.Fatalf("answer to a cancelled wait: %q %v", current, err)
	}
	// An answered wait keeps its answer.
	suspend(t, s, "u", "s2", "resp_2", approval("apr_2"))
	if _, _, err := s.ResolveWait(ctx, "u", "apr_2", store.WaitApproval, store.WaitDenied, nil, time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := s.FinishWait(ctx, "u", "s2", "resp_2", "apr_2", store.WaitExpired, 1); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := s.GetWait(ctx, "u", "apr_2"); got.Status != store.WaitDenied {
		t.Fatalf("finish overwrote an answer: %+v", got)
	}
	if err := s.FinishWait(ctx, "u", "s", "resp_1", "apr_none", store.WaitExpired, 1); err != nil {
		t.Fatalf("finishing a missing wait: %v", err)
	}
}

// Deleting a session removes its waits and their entries in the user's
// index: a deleted session's approval is not found (404), nor answered.
func waitGoneWithTheirSession(t *testing.T, s store.Store) {
	suspend(t, s, "u", "s", "resp_1", approval("apr_1"))
	suspend(t, s, "u", "s2", "resp_2", approval("apr_2"))
	finish(t, s, "u", "s", "resp_1") // released: the session may be deleted
	if found, err := s.DeleteSession(ctx, "u", "s"); !found || err != nil {
		t.Fatalf("delete: %v %v", found, err)
	}
	check := func(when string) {
		t.Helper()
		if w, found, err := s.GetWait(ctx, "u", "apr_1"); found || err != nil {
			t.Fatalf("%s: the wait of a deleted session is found: %+v %v", when, w, err)
		}
		if w, found, err := s.ReadWait(ctx, "u", "s", "apr_1"); found || err != nil {
			t.Fatalf("%s: the wait of a deleted session is read: %+v %v", when, w, err)
		}
		w, current, err := s.ResolveWait(ctx, "u", "apr_1", store.WaitApproval, store.WaitApproved, nil, time.Now())
		if w.ID != "" || current != "" || err != nil {
			t.Fatalf("%s: the wait of a deleted session is answered: %+v %q %v", when, w, current, err)
		}
	}
	check("after the delete")
	// A new session of the same ID does not bring it back.
	if err := s.CreateSession(ctx, "u", "s", nil, "t"); err != nil {
		t.Fatal(err)
	}
	check("in a new session of the same ID")
	// The user's other session keeps its wait.
	if got, found, err := s.GetWait(ctx, "u", "apr_2"); !found || err != nil || got.Session != "s2" || got.Status != store.WaitPending {
		t.Fatalf("the wait of another session: %+v %v %v", got, found, err)
	}
}
