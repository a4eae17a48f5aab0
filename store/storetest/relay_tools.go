package storetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/harnest/harnest/store"
)

// The contract of tools at home: callback tokens, grants and tool calls.

func testRelayTools(t *testing.T, h Harness) {
	subtests(t, h, map[string]func(t *testing.T, s store.Store){
		"CallbackTokens":     testRelayCallbacks,
		"Grants":             testRelayGrants,
		"CallsOncePerCallID": testRelayCallsOnce,
		"CallsPerRun":        testRelayCallsPerRun,
		"CallRace":           testRelayCallRace,
		"Approvals":          testRelayCallApprovals,
	})
}

func testRelayCallbacks(t *testing.T, st store.Store) {
	now := time.Now()
	cb := store.RelayCallback{TokenHash: "h1", Owner: relayOwnerA, Participant: "p:1", ExpiresAt: now.Add(time.Hour)}
	relayOK(t, "PutRelayCallback", st.PutRelayCallback(ctx, cb, now))
	got, ok, err := st.RelayCallbackByToken(ctx, "h1", now)
	relayOK(t, "RelayCallbackByToken", err)
	if !ok || got.Owner != relayOwnerA || got.Participant != "p:1" || !got.ExpiresAt.Equal(time.UnixMilli(cb.ExpiresAt.UnixMilli())) {
		t.Fatalf("callback %+v %v", got, ok)
	}
	if _, ok, _ := st.RelayCallbackByToken(ctx, "h1", now.Add(time.Hour)); ok {
		t.Fatal("a callback token is found at its expiry")
	}
	if _, ok, _ := st.RelayCallbackByToken(ctx, "unknown", now); ok {
		t.Fatal("an unknown token is found")
	}
	// A new token of the participant ends the old one.
	cb2 := cb
	cb2.TokenHash = "h2"
	relayOK(t, "PutRelayCallback again", st.PutRelayCallback(ctx, cb2, now))
	if _, ok, _ := st.RelayCallbackByToken(ctx, "h1", now); ok {
		t.Fatal("the earlier token still works after a new one")
	}
	// Another owner's participant of the same ID keeps its own token.
	other := store.RelayCallback{TokenHash: "hb", Owner: relayOwnerB, Participant: "p:1", ExpiresAt: now.Add(time.Hour)}
	relayOK(t, "PutRelayCallback B", st.PutRelayCallback(ctx, other, now))
	relayOK(t, "EndRelayCallback", st.EndRelayCallback(ctx, relayOwnerA, "p:1"))
	if _, ok, _ := st.RelayCallbackByToken(ctx, "h2", now); ok {
		t.Fatal("an ended token still works")
	}
	if got, ok, _ := st.RelayCallbackByToken(ctx, "hb", now); !ok || got.Owner != relayOwnerB {
		t.Fatalf("ending A's token ended B's: %+v %v", got, ok)
	}
	relayOK(t, "EndRelayCallback without a token", st.EndRelayCallback(ctx, relayOwnerA, "nobody"))
}

func testRelayGrants(t *testing.T, st store.Store) {
	if g := relayMust(st.RelayGrants(ctx, relayOwnerA, "p")); len(g) != 0 {
		t.Fatalf("grants before any: %v", g)
	}
	relayOK(t, "SetRelayGrants", st.SetRelayGrants(ctx, relayOwnerA, "p", []string{"b", "a", "c__d"}, time.Hour))
	if g := fmt.Sprint(relayMust(st.RelayGrants(ctx, relayOwnerA, "p"))); g != "[a b c__d]" {
		t.Fatalf("grants %s, want sorted", g)
	}
	if g := relayMust(st.RelayGrants(ctx, relayOwnerB, "p")); len(g) != 0 {
		t.Fatalf("another owner sees the grants: %v", g)
	}
	relayOK(t, "SetRelayGrants replaces", st.SetRelayGrants(ctx, relayOwnerA, "p", []string{"x"}, time.Hour))
	if g := fmt.Sprint(relayMust(st.RelayGrants(ctx, relayOwnerA, "p"))); g != "[x]" {
		t.Fatalf("grants after a replace %s", g)
	}
	relayOK(t, "SetRelayGrants none", st.SetRelayGrants(ctx, relayOwnerA, "p", nil, time.Hour))
	if g := relayMust(st.RelayGrants(ctx, relayOwnerA, "p")); len(g) != 0 {
		t.Fatalf("grants after revoking all: %v", g)
	}
}

// relayCall is a running call of participant p in run r.
func relayCall(run, callID string, at time.Time) store.RelayToolCall {
	return store.RelayToolCall{Participant: "p", Run: run, CallID: callID, Tool: "lookup", ArgsHash: "ah-" + callID,
		Status: store.RelayCallRunning, StartedAt: at}
}

func testRelayCallsOnce(t *testing.T, st store.Store) {
	now := time.Now()
	c := relayCall("run:1", "c{1}", now)
	got, existing, err := st.BeginRelayToolCall(ctx, relayOwnerA, c, 20, time.Hour)
	relayOK(t, "BeginRelayToolCall", err)
	if existing || got.Status != store.RelayCallRunning || got.Tool != "lookup" {
		t.Fatalf("begin %+v existing=%v", got, existing)
	}
	again, existing, err := st.BeginRelayToolCall(ctx, relayOwnerA, c, 20, time.Hour)
	relayOK(t, "BeginRelayToolCall again", err)
	if !existing || again.ArgsHash != "ah-c{1}" || again.Status != store.RelayCallRunning {
		t.Fatalf("repeat %+v existing=%v, want the first call", again, existing)
	}
	done := c
	done.Status, done.Result, done.FinishedAt = store.RelayCallCompleted, []byte(`{"n":1}`), now.Add(time.Second)
	relayOK(t, "FinishRelayToolCall", st.FinishRelayToolCall(ctx, relayOwnerA, done))
	// A second finish does not change the outcome.
	late := done
	late.Status, late.Result = store.RelayCallFailed, []byte(`"late"`)
	relayOK(t, "FinishRelayToolCall again", st.FinishRelayToolCall(ctx, relayOwnerA, late))
	read, ok, err := st.GetRelayToolCall(ctx, relayOwnerA, "p", "run:1", "c{1}")
	relayOK(t, "GetRelayToolCall", err)
	if !ok || read.Status != store.RelayCallCompleted || string(read.Result) != `{"n":1}` || !read.Final() ||
		!read.FinishedAt.Equal(time.UnixMilli(done.FinishedAt.UnixMilli())) {
		t.Fatalf("finished call %+v %v", read, ok)
	}
	if _, ok, _ := st.GetRelayToolCall(ctx, relayOwnerB, "p", "run:1", "c{1}"); ok {
		t.Fatal("another owner reads the call")
	}
	repeat, existing, _ := st.BeginRelayToolCall(ctx, relayOwnerA, c, 20, time.Hour)
	if !existing || string(repeat.Result) != `{"n":1}` {
		t.Fatalf("repeat after the end %+v", repeat)
	}
}

func testRelayCallsPerRun(t *testing.T, st store.Store) {
	now := time.Now()
	for i := range 3 {
		_, _, err := st.BeginRelayToolCall(ctx, relayOwnerA, relayCall("r1", fmt.Sprint("c", i), now.Add(time.Duration(i)*time.Millisecond)), 3, time.Hour)
		relayOK(t, "call within the run's limit", err)
	}
	_, _, err := st.BeginRelayToolCall(ctx, relayOwnerA, relayCall("r1", "c3", now), 3, time.Hour)
	relayIs(t, "a fourth call of three", err, store.ErrRelayRunSpent)
	if _, existing, err := st.BeginRelayToolCall(ctx, relayOwnerA, relayCall("r1", "c0", now), 3, time.Hour); err != nil || !existing {
		t.Fatalf("a repeat of a spent run: existing=%v err=%v, want the first call", existing, err)
	}
	_, _, err = st.BeginRelayToolCall(ctx, relayOwnerA, relayCall("r2", "c3", now.Add(5*time.Millisecond)), 3, time.Hour)
	relayOK(t, "another run has its own count", err)
	_, _, err = st.BeginRelayToolCall(ctx, relayOwnerB, relayCall("r1", "c3", now), 3, time.Hour)
	relayOK(t, "another owner has its own count", err)

	list := relayMust(st.ListRelayToolCalls(ctx, relayOwnerA, "p", 10))
	var ids string
	for _, c := range list {
		ids += c.Run + "/" + c.CallID + " "
	}
	if ids != "r2/c3 r1/c2 r1/c1 r1/c0 " {
		t.Fatalf("calls %q, want the newest first", ids)
	}
	if two := relayMust(st.ListRelayToolCalls(ctx, relayOwnerA, "p", 2)); len(two) != 2 {
		t.Fatalf("limit 2 gave %d", len(two))
	}
}

func testRelayCallRace(t *testing.T, st store.Store) {
	now := time.Now()
	began := raceWins(t, 8, func(int) (bool, error) {
		_, existing, err := st.BeginRelayToolCall(ctx, relayOwnerA, relayCall("race", "one", now), 20, time.Hour)
		return !existing, err
	})
	if began != 1 {
		t.Fatalf("%d racers began the call, want exactly one", began)
	}
}

func testRelayCallApprovals(t *testing.T, st store.Store) {
	now := time.Now()
	waiting := relayCall("r", "gated", now)
	waiting.Status, waiting.ApprovalID = store.RelayCallAwaiting, "appr:1"
	_, _, err := st.BeginRelayToolCall(ctx, relayOwnerA, waiting, 20, time.Hour)
	relayOK(t, "Begin awaiting", err)
	if ok, _ := st.ClaimRelayToolCall(ctx, relayOwnerA, "p", "r", "gated"); ok {
		t.Fatal("a call waiting for approval was claimed")
	}
	_, err = st.DecideRelayToolCall(ctx, relayOwnerB, "appr:1", true, now)
	relayIs(t, "another owner decides", err, store.ErrRelayApprovalUnknown)
	got, err := st.DecideRelayToolCall(ctx, relayOwnerA, "appr:1", true, now)
	relayOK(t, "Decide approve", err)
	if got.Status != store.RelayCallApproved || got.CallID != "gated" {
		t.Fatalf("approved call %+v", got)
	}
	_, err = st.DecideRelayToolCall(ctx, relayOwnerA, "appr:1", false, now)
	relayIs(t, "a second decision", err, store.ErrRelayApprovalDecided)
	first, _ := st.ClaimRelayToolCall(ctx, relayOwnerA, "p", "r", "gated")
	second, _ := st.ClaimRelayToolCall(ctx, relayOwnerA, "p", "r", "gated")
	if !first || second {
		t.Fatalf("claims %v then %v, want true then false", first, second)
	}

	denied := relayCall("r", "no", now)
	denied.Status, denied.ApprovalID = store.RelayCallAwaiting, "appr:2"
	_, _, err = st.BeginRelayToolCall(ctx, relayOwnerA, denied, 20, time.Hour)
	relayOK(t, "Begin awaiting 2", err)
	got, err = st.DecideRelayToolCall(ctx, relayOwnerA, "appr:2", false, now)
	relayOK(t, "Decide deny", err)
	if got.Status != store.RelayCallDenied || !got.Final() {
		t.Fatalf("denied call %+v", got)
	}
	if ok, _ := st.ClaimRelayToolCall(ctx, relayOwnerA, "p", "r", "no"); ok {
		t.Fatal("a denied call was claimed")
	}
	_, err = st.DecideRelayToolCall(ctx, relayOwnerA, "unknown", true, now)
	relayIs(t, "an unknown approval", err, store.ErrRelayApprovalUnknown)
}
