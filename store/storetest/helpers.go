package storetest

import (
	"context"
	"errors"
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
	runByName(t, tests, func(t *testing.T) store.Store { return open(t, h) })
}

// harnessSubtests runs each named test that needs the harness itself: it
// lets time pass (Elapse) or opens a store with another receipt TTL.
func harnessSubtests(t *testing.T, h Harness, tests map[string]func(t *testing.T, h Harness)) {
	t.Helper()
	runByName(t, tests, func(*testing.T) Harness { return h })
}

// runByName runs the tests as subtests in the order of their names, each
// given what arg makes for it.
func runByName[A any](t *testing.T, tests map[string]func(*testing.T, A), arg func(t *testing.T) A) {
	t.Helper()
	for _, name := range slices.Sorted(maps.Keys(tests)) {
		t.Run(name, func(t *testing.T) { tests[name](t, arg(t)) })
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

// mustBeBusy begins rid in user u's session, failing the test unless
// the begin is refused with ErrSessionBusy; what says why it should be.
func mustBeBusy(t *testing.T, s store.Store, session, rid, what string) {
	t.Helper()
	if _, err := s.BeginResponse(ctx, beginArgs("u", session, rid, false, time.Minute)); !errors.Is(err, store.ErrSessionBusy) {
		t.Fatalf("%s: %v, want ErrSessionBusy", what, err)
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

// mustFillSession makes session u/s with a finished response and an
// asset: resp_1 begun and committed (events 0 to 2, message m1, released)
// and asset "a" of 3 bytes.
func mustFillSession(t *testing.T, s store.Store) {
	t.Helper()
	mustBegin(t, s, "u", "s", "resp_1", true, time.Minute)
	err := s.CommitResponse(ctx, store.Commit{User: "u", Session: "s", ResponseID: "resp_1", Receipt: completed,
		Events: evs(0, 2), Messages: [][]byte{[]byte(`{"id":"m1"}`)}, Release: true, Replica: "r1"})
	if err != nil {
		t.Fatalf("commit resp_1: %v", err)
	}
	if err := s.PutAsset(ctx, "u", "s", store.Asset{ID: "a"}, []byte("abc"), store.AssetQuota{}); err != nil {
		t.Fatalf("put asset a: %v", err)
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

// signalledWithin reports whether ch is signalled within d.
func signalledWithin(ch <-chan struct{}, d time.Duration) bool {
	select {
	case <-ch:
		return true
	case <-time.After(d):
		return false
	}
}

// waitSignal waits, bounded (5 s), for a signal on sig, which what
// should have sent.
func waitSignal(t *testing.T, sig <-chan struct{}, what string) {
	t.Helper()
	if !signalledWithin(sig, 5*time.Second) {
		t.Fatalf("no signal within 5 s after %s", what)
	}
}

// noSignal fails the test if sig is signalled within quiet: what should
// have sent none.
func noSignal(t *testing.T, sig <-chan struct{}, quiet time.Duration, what string) {
	t.Helper()
	if signalledWithin(sig, quiet) {
		t.Fatalf("a signal after %s, want none", what)
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
