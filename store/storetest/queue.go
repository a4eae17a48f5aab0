package storetest

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/harnest/harnest/store"
)

// queuedReceipt is a queued receipt as the runtime writes it.
var queuedReceipt = []byte(`{"id":"resp","status":"queued","output":[]}`)

// enqueue is an Enqueue of rid in the user's session, with a request, a
// webhook and its response.created event.
func enqueue(user, session, rid string) store.Enqueue {
	return store.Enqueue{User: user, Session: session, ResponseID: rid, Receipt: queuedReceipt,
		Request: []byte(`{"input":"` + rid + `"}`), Webhook: "hook-" + rid, Events: evs(0, 0), Now: "t0"}
}

// queuedIDs reads the session's queue.
func queuedIDs(t *testing.T, s store.Store, user, session string) []string {
	t.Helper()
	ids, n, err := s.QueuedResponses(ctx, user, session, 100)
	if err != nil || n != len(ids) {
		t.Fatalf("queued responses: %v (%d) %v", ids, n, err)
	}
	return ids
}

// testQueues is the contract of Queues: a response queued on a busy session
// in one operation with the check that it is busy, FIFO (or at the head),
// within a bound; a session with a queue refuses to begin anything else;
// the head takes the session when nobody holds it, exactly once; a queued
// response cancelled leaves the queue and never starts.
func testQueues(t *testing.T, h Harness) {
	subtests(t, h, map[string]func(t *testing.T, s store.Store){
		"RefusalsWriteNothing":    queueRefusalsWriteNothing,
		"QueuedIsStoredAndListed": queueQueuedIsStoredAndListed,
		"OrderFrontAndStart":      queueOrderFrontAndStart,
		"CancelledNeverStarts":    queueCancelledNeverStarts,
		"FinalHeadIsSkipped":      queueFinalHeadIsSkipped,
	})
}

func queueRefusalsWriteNothing(t *testing.T, s store.Store) {
	if err := s.QueueResponse(ctx, enqueue("u", "s", "q1")); !errors.Is(err, store.ErrSessionNotFound) {
		t.Fatalf("no session: %v", err)
	}
	if err := s.CreateSession(ctx, "u", "s", nil, "t0"); err != nil {
		t.Fatal(err)
	}
	if err := s.QueueResponse(ctx, enqueue("u", "s", "q1")); !errors.Is(err, store.ErrSessionIdle) {
		t.Fatalf("idle session: %v", err)
	}
	mustBegin(t, s, "u", "s", "a", false, time.Minute)
	bounded := enqueue("u", "s", "q1")
	bounded.Bound = 1
	if err := s.QueueResponse(ctx, bounded); err != nil {
		t.Fatal(err)
	}
	bounded = enqueue("u", "s", "q2")
	bounded.Bound = 1
	if err := s.QueueResponse(ctx, bounded); !errors.Is(err, store.ErrQueueFull) {
		t.Fatalf("past the bound: %v", err)
	}
	if _, found, _ := s.Receipt(ctx, "u", "s", "q2"); found {
		t.Fatal("a refused response has a receipt")
	}
	if got := queuedIDs(t, s, "u", "s"); !slices.Equal(got, []string{"q1"}) {
		t.Fatalf("queue %v", got)
	}
	runs, _ := s.RunsOf(ctx, store.QueuedReplica, 10)
	if len(runs) != 1 || runs[0].ResponseID != "q1" {
		t.Fatalf("queued runs %v", runs)
	}
}

func queueQueuedIsStoredAndListed(t *testing.T, s store.Store) {
	mustBegin(t, s, "u", "s", "a", true, time.Minute)
	if err := s.QueueResponse(ctx, enqueue("u", "s", "q1")); err != nil {
		t.Fatal(err)
	}
	if b, found, _ := s.Receipt(ctx, "u", "s", "q1"); !found || string(b) != string(queuedReceipt) {
		t.Fatalf("queued receipt %s %v", b, found)
	}
	if got, err := s.EventsAfter(ctx, "u", "s", "q1", -1, 0); err != nil || !slices.Equal(sequences(got), []int{0}) {
		t.Fatalf("queued events %v %v", sequences(got), err)
	}
	listed, _ := s.SessionResponses(ctx, "u", "s", 0, 10)
	if len(listed) != 2 || listed[0].ID != "q1" || listed[1].ID != "a" {
		t.Fatalf("listed %v", listed)
	}
	if active, _ := s.ActiveResponse(ctx, "u", "s"); active != "a" {
		t.Fatalf("active %q", active)
	}
}

func queueOrderFrontAndStart(t *testing.T, s store.Store) {
	mustBegin(t, s, "u", "s", "a", true, time.Minute)
	for _, id := range []string{"q1", "q2", "q3"} {
		if err := s.QueueResponse(ctx, enqueue("u", "s", id)); err != nil {
			t.Fatal(err)
		}
	}
	front := enqueue("u", "s", "q0")
	front.Front = true
	if err := s.QueueResponse(ctx, front); err != nil {
		t.Fatal(err)
	}
	if got := queuedIDs(t, s, "u", "s"); !slices.Equal(got, []string{"q0", "q1", "q2", "q3"}) {
		t.Fatalf("queue %v", got)
	}
	if _, found, err := s.StartQueued(ctx, "u", "s", "r2", time.Minute); err != nil || found {
		t.Fatalf("started while held: %v %v", found, err)
	}
	finish(t, s, "u", "s", "a")
	// Released, the session is still busy for everyone else: its
	// queue goes first.
	mustBeBusy(t, s, "s", "b", "begin past a queue")
	run, found, err := s.StartQueued(ctx, "u", "s", "r2", time.Minute)
	if err != nil || !found || run.ResponseID != "q0" || string(run.Request) != `{"input":"q0"}` ||
		run.Webhook != "hook-q0" || run.LastSequence != 0 {
		t.Fatalf("started %+v %v %v", run, found, err)
	}
	if active, _ := s.ActiveResponse(ctx, "u", "s"); active != "q0" {
		t.Fatalf("active %q", active)
	}
	if b, _, _ := s.Receipt(ctx, "u", "s", "q0"); string(b) != `{"id":"resp","status":"in_progress","output":[]}` {
		t.Fatalf("started receipt %s", b)
	}
	if _, found, _ := s.StartQueued(ctx, "u", "s", "r3", time.Minute); found {
		t.Fatal("started twice while the first holds the session")
	}
	runs, _ := s.RunsOf(ctx, "r2", 10)
	if len(runs) != 1 || runs[0].ResponseID != "q0" || runs[0].Epoch != 1 {
		t.Fatalf("runs of the starter %v", runs)
	}
	queued, _ := s.RunsOf(ctx, store.QueuedReplica, 10)
	if len(queued) != 3 {
		t.Fatalf("queued runs %v", queued)
	}
	// The started run writes as its first attempt and releases.
	err = s.CommitResponse(ctx, store.Commit{User: "u", Session: "s", ResponseID: "q0", Receipt: completed,
		Events: evs(1, 1), Release: true, Replica: "r2", Epoch: 1, Now: "t1"})
	if err != nil {
		t.Fatal(err)
	}
	if run, _, _ := s.StartQueued(ctx, "u", "s", "r2", time.Minute); run.ResponseID != "q1" {
		t.Fatalf("second %+v", run)
	}
}

func queueCancelledNeverStarts(t *testing.T, s store.Store) {
	mustBegin(t, s, "u", "s", "a", true, time.Minute)
	for _, id := range []string{"q1", "q2"} {
		if err := s.QueueResponse(ctx, enqueue("u", "s", id)); err != nil {
			t.Fatal(err)
		}
	}
	cancelled := []byte(`{"id":"q1","status":"cancelled","output":[]}`)
	if webhook, ok, err := s.CancelQueued(ctx, "u", "s", "q1", cancelled, evs(1, 1)); err != nil || !ok || webhook != "hook-q1" {
		t.Fatalf("cancel %q %v %v", webhook, ok, err)
	}
	if _, ok, _ := s.CancelQueued(ctx, "u", "s", "q1", cancelled, nil); ok {
		t.Fatal("cancelled twice")
	}
	if b, _, _ := s.Receipt(ctx, "u", "s", "q1"); string(b) != string(cancelled) {
		t.Fatalf("receipt %s", b)
	}
	if got, _ := s.EventsAfter(ctx, "u", "s", "q1", -1, 0); !slices.Equal(sequences(got), []int{0, 1}) {
		t.Fatalf("events %v", sequences(got))
	}
	if got := queuedIDs(t, s, "u", "s"); !slices.Equal(got, []string{"q2"}) {
		t.Fatalf("queue %v", got)
	}
	finish(t, s, "u", "s", "a")
	if run, _, _ := s.StartQueued(ctx, "u", "s", "r1", time.Minute); run.ResponseID != "q2" {
		t.Fatalf("started %+v", run)
	}
	if _, ok, _ := s.CancelQueued(ctx, "u", "s", "q2", cancelled, nil); ok {
		t.Fatal("a started response cancelled as queued")
	}
	if got := queuedIDs(t, s, "u", "s"); len(got) != 0 {
		t.Fatalf("queue %v", got)
	}
	// An empty queue no longer keeps the session busy.
	finish(t, s, "u", "s", "q2")
	mustBegin(t, s, "u", "s", "b", false, time.Minute)
}

func queueFinalHeadIsSkipped(t *testing.T, s store.Store) {
	mustBegin(t, s, "u", "s", "a", true, time.Minute)
	for _, id := range []string{"q1", "q2"} {
		if err := s.QueueResponse(ctx, enqueue("u", "s", id)); err != nil {
			t.Fatal(err)
		}
	}
	// q1's receipt became final without the queue knowing (a
	// crash between two writes): it is dropped, never started.
	if err := s.ReplaceReceipt(ctx, "u", "s", "q1", 1, []byte(`{"id":"q1","status":"failed","output":[]}`)); err != nil {
		t.Fatal(err)
	}
	finish(t, s, "u", "s", "a")
	run, found, err := s.StartQueued(ctx, "u", "s", "r1", time.Minute)
	if err != nil || !found || run.ResponseID != "q2" {
		t.Fatalf("started %+v %v %v", run, found, err)
	}
	if queued, _ := s.RunsOf(ctx, store.QueuedReplica, 10); len(queued) != 0 {
		t.Fatalf("queued runs left %v", queued)
	}
}
