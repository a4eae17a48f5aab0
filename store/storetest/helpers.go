package storetest

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/harnest/harnest/store"
)

// Helpers the contract tests share.

var ctx = context.Background()

// inProgress and completed are receipts as the runtime writes them.
var (
	inProgress = []byte(`{"id":"resp","status":"in_progress","output":[]}`)
	completed  = []byte(`{"id":"resp","status":"completed","output":[]}`)
)

// open opens a store with the default receipt TTL.
func open(t *testing.T, h Harness) store.Store {
	t.Helper()
	return h.Open(t, 0)
}

// subtests runs each named test with its own store.
func subtests(t *testing.T, h Harness, tests map[string]func(t *testing.T, s store.Store)) {
	t.Helper()
	for _, name := range slices.Sorted(maps.Keys(tests)) {
		t.Run(name, func(t *testing.T) { tests[name](t, open(t, h)) })
	}
}

// beginArgs is a Begin of response rid in the user's session, which it
// creates, holding the session for lease.
func beginArgs(user, session, rid string, create bool, lease time.Duration) store.Begin {
	return store.Begin{User: user, Session: session, ResponseID: rid, CreateSession: create,
		Receipt: inProgress, Lease: lease, Replica: "r1", Now: "t0"}
}

// mustBegin begins a response (creating the session when create), failing
// the test on any error.
func mustBegin(t *testing.T, s store.Store, user, session, rid string, create bool, lease time.Duration) {
	t.Helper()
	if _, err := s.BeginResponse(ctx, beginArgs(user, session, rid, create, lease)); err != nil {
		t.Fatalf("begin %s in %s/%s: %v", rid, user, session, err)
	}
}

// finish commits a completed receipt that releases the session.
func finish(t *testing.T, s store.Store, user, session, rid string) {
	t.Helper()
	err := s.CommitResponse(ctx, store.Commit{User: user, Session: session, ResponseID: rid,
		Receipt: completed, Release: true, Replica: "r1", Now: "t1"})
	if err != nil {
		t.Fatalf("commit %s: %v", rid, err)
	}
}

// ev is an event with the sequence seq.
func ev(seq int) store.Event {
	return store.Event{Sequence: seq, Type: "response.text.delta", JSON: []byte(`{"sequence":` + strconv.Itoa(seq) + `}`)}
}

// evs are the events with sequences from to to (inclusive).
func evs(from, to int) []store.Event {
	out := make([]store.Event, 0, to-from+1)
	for i := from; i <= to; i++ {
		out = append(out, ev(i))
	}
	return out
}

// sequences lists the events' sequences.
func sequences(events []store.Event) []int {
	out := make([]int, len(events))
	for i, e := range events {
		out[i] = e.Sequence
	}
	return out
}

// signalled waits up to 5 s for a signal on ch.
func signalled(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	case <-time.After(5 * time.Second):
		return false
	}
}

// drain empties a signal channel.
func drain(ch <-chan struct{}) {
	for {
		select {
		case <-ch:
		default:
			return
		}
	}
}
