package storetest

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/harnest/harnest/store"
)

// testResponses is the contract of a response's steps: begin, commit and
// receipts.
func testResponses(t *testing.T, h Harness) {
	subtests(t, h, map[string]func(t *testing.T, s store.Store){
		"BeginCommit":                 beginCommit,
		"BeginRefusedKeepsNothing":    beginRefusedKeepsNothing,
		"BeginReturnsState":           beginReturnsState,
		"CommitSuspendsAndResumes":    commitSuspendsAndResumes,
		"ReplaceReceipt":              replaceReceipt,
		"ReceiptIsTheUsersOwn":        receiptIsTheUsersOwn,
		"FinalReceiptNeverChanges":    finalReceiptNeverChanges,
		"BeginNeverReusesAnID":        beginNeverReusesAnID,
		"CommitKeepsTheCallersBuffer": commitKeepsTheCallersBuffer,
	})
}

func beginCommit(t *testing.T, s store.Store) {
	mustBegin(t, s, "u", "s", "resp_1", true, time.Minute)
	got, found, err := s.Receipt(ctx, "u", "s", "resp_1")
	if err != nil || !found || string(got) != string(inProgress) {
		t.Fatalf("in_progress receipt: %s %v %v", got, found, err)
	}
	err = s.CommitResponse(ctx, store.Commit{User: "u", Session: "s", ResponseID: "resp_1", Receipt: completed,
		Events:     []store.Event{{Sequence: 0, Type: "a", JSON: []byte(`{"sequence":0}`)}, {Sequence: 1, Type: "b", JSON: []byte(`{"sequence":1}`)}},
		Messages:   [][]byte{[]byte(`{"id":"m1"}`), []byte(`{"id":"m2"}`)},
		StateDelta: map[string]json.RawMessage{"k": json.RawMessage(`"v"`)}, Release: true, Replica: "r1", Now: "t2"})
	if err != nil {
		t.Fatal(err)
	}
	got, _, _ = s.Receipt(ctx, "u", "s", "resp_1")
	if string(got) != string(completed) {
		t.Fatalf("receipt %s", got)
	}
	events, _ := s.EventsAfter(ctx, "u", "s", "resp_1", -1, 10)
	if len(events) != 2 || events[1].Sequence != 1 || events[1].Type != "b" || string(events[1].JSON) != `{"sequence":1}` {
		t.Fatalf("events %+v", events)
	}
	msgs, _ := s.Messages(ctx, "u", "s", 0, 10)
	if len(msgs) != 2 || msgs[1].Offset != 1 || string(msgs[1].JSON) != `{"id":"m2"}` {
		t.Fatalf("messages %+v", msgs)
	}
	sess, _, _ := s.GetSession(ctx, "u", "s")
	if string(sess.State["k"]) != `"v"` || sess.UpdatedAt != "t2" {
		t.Fatalf("state delta not merged: %+v", sess)
	}
	// Released: a new response may start; the old one's commit is refused.
	mustBegin(t, s, "u", "s", "resp_2", false, time.Minute)
	err = s.CommitResponse(ctx, store.Commit{User: "u", Session: "s", ResponseID: "resp_1", Receipt: completed, Release: true})
	if !errors.Is(err, store.ErrLeaseLost) {
		t.Fatalf("stale commit: %v, want ErrLeaseLost", err)
	}
	if got, _, _ := s.Receipt(ctx, "u", "s", "resp_2"); string(got) != string(inProgress) {
		t.Fatalf("a refused commit changed another receipt: %s", got)
	}
}

// A refused begin keeps no receipt and no lease.
func beginRefusedKeepsNothing(t *testing.T, s store.Store) {
	if _, err := s.BeginResponse(ctx, beginArgs("u", "nope", "resp_0", false, time.Minute)); !errors.Is(err, store.ErrSessionNotFound) {
		t.Fatalf("begin in a missing session: %v, want ErrSessionNotFound", err)
	}
	if _, found, _ := s.Receipt(ctx, "u", "nope", "resp_0"); found {
		t.Fatal("a refused begin kept its receipt")
	}
	if err := s.CreateSession(ctx, "u", "nope", nil, "t"); err != nil {
		t.Fatal(err)
	}
	mustBegin(t, s, "u", "nope", "resp_1", false, time.Minute) // no lease was left behind
	mustBeBusy(t, s, "nope", "resp_2", "second begin")
	if _, found, _ := s.Receipt(ctx, "u", "nope", "resp_2"); found {
		t.Fatal("a refused begin kept its receipt")
	}
	if got, _, _ := s.Receipt(ctx, "u", "nope", "resp_1"); string(got) != string(inProgress) {
		t.Fatalf("a refused begin changed the holder's receipt: %s", got)
	}
	// The refused one's run was not registered: a sweep past its lease
	// finds only the holder's.
	var asked []string
	_, err := s.SweepLapsed(ctx, time.Now().Add(time.Hour), 10, func(l store.Lapsed) bool {
		asked = append(asked, l.ResponseID)
		return false
	}, nil)
	if err != nil || len(asked) != 1 || asked[0] != "resp_1" {
		t.Fatalf("registered runs %v, %v; want [resp_1]", asked, err)
	}
}

func beginReturnsState(t *testing.T, s store.Store) {
	state := map[string]json.RawMessage{"a": json.RawMessage(`1`), "b": json.RawMessage(`[2]`)}
	if err := s.CreateSession(ctx, "u", "s", state, "t"); err != nil {
		t.Fatal(err)
	}
	got, err := s.BeginResponse(ctx, beginArgs("u", "s", "resp_1", false, time.Minute))
	if err != nil || len(got) != 2 || string(got["a"]) != "1" || string(got["b"]) != "[2]" {
		t.Fatalf("state %v, %v", got, err)
	}
	got["c"] = json.RawMessage(`3`) // the caller's map
	if sess, _, _ := s.GetSession(ctx, "u", "s"); len(sess.State) != 2 {
		t.Fatalf("changing the returned map changed the session: %+v", sess.State)
	}
}

// A commit without Release keeps the lease (a suspension); the response
// then commits again.
func commitSuspendsAndResumes(t *testing.T, s store.Store) {
	mustBegin(t, s, "u", "s", "resp_1", true, time.Minute)
	waiting := []byte(`{"id":"resp_1","status":"requires_action"}`)
	err := s.CommitResponse(ctx, store.Commit{User: "u", Session: "s", ResponseID: "resp_1", Receipt: waiting, Events: evs(0, 1), Replica: "r1"})
	if err != nil {
		t.Fatal(err)
	}
	mustBeBusy(t, s, "s", "resp_2", "begin while suspended")
	if err := s.ReplaceReceipt(ctx, "u", "s", "resp_1", 1, inProgress); err != nil {
		t.Fatalf("resume: %v", err)
	}
	err = s.CommitResponse(ctx, store.Commit{User: "u", Session: "s", ResponseID: "resp_1", Receipt: completed, Events: evs(2, 3), Release: true, Replica: "r1"})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := s.EventsAfter(ctx, "u", "s", "resp_1", -1, 10); len(got) != 4 {
		t.Fatalf("events of both steps: %v", sequences(got))
	}
	mustBegin(t, s, "u", "s", "resp_2", false, time.Minute)
}

func replaceReceipt(t *testing.T, s store.Store) {
	mustBegin(t, s, "u", "s", "resp_1", true, time.Minute)
	for _, r := range []string{`{"status":"requires_action"}`, `{"status":"in_progress","n":2}`, `{"status":"failed"}`} {
		if err := s.ReplaceReceipt(ctx, "u", "s", "resp_1", 1, []byte(r)); err != nil {
			t.Fatalf("replace with %s: %v", r, err)
		}
		if got, _, _ := s.Receipt(ctx, "u", "s", "resp_1"); string(got) != r {
			t.Fatalf("receipt %s, want %s", got, r)
		}
	}
	if err := s.ReplaceReceipt(ctx, "u", "s", "resp_1", 1, inProgress); !errors.Is(err, store.ErrReceiptFinal) {
		t.Fatalf("replacing a final receipt: %v, want ErrReceiptFinal", err)
	}
	// A receipt may be written where there was none.
	if err := s.ReplaceReceipt(ctx, "u", "s", "resp_x", 1, inProgress); err != nil {
		t.Fatal(err)
	}
	if _, found, _ := s.Receipt(ctx, "u", "s", "resp_x"); !found {
		t.Fatal("replaced receipt not found")
	}
}

func receiptIsTheUsersOwn(t *testing.T, s store.Store) {
	mustBegin(t, s, "u", "s", "resp_1", true, time.Minute)
	for _, c := range [][2]string{{"other", "s"}, {"u", "s2"}} {
		if _, found, _ := s.Receipt(ctx, c[0], c[1], "resp_1"); found {
			t.Fatalf("%v reads the receipt", c)
		}
	}
	if _, found, err := s.Receipt(ctx, "u", "s", "resp_none"); found || err != nil {
		t.Fatalf("a missing receipt: %v %v", found, err)
	}
}

// A final receipt never changes: neither a late commit nor a replacement
// nor a renewal overwrites it, once the lease lapsed and a sweeper
// recorded the run as lost.
func finalReceiptNeverChanges(t *testing.T, s store.Store) {
	mustBegin(t, s, "u", "s", "resp_1", true, time.Minute)
	// Released without the response's own final step (a runtime that
	// failed it elsewhere), then recorded as failed.
	err := s.CommitResponse(ctx, store.Commit{User: "u", Session: "s", ResponseID: "resp_1",
		Receipt: []byte(`{"status":"requires_action"}`), Release: true, Replica: "r1"})
	if err != nil {
		t.Fatal(err)
	}
	final := []byte(`{"id":"resp_1","sessionId":"s","status":"failed","output":[],"metadata":{"status":"in_progress"},"error":{"code":"replica_lost"}}`)
	if err := s.ReplaceReceipt(ctx, "u", "s", "resp_1", 1, final); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.RenewLease(ctx, "u", "s", "resp_1", "r1", 1, time.Minute); ok || err != nil {
		t.Fatalf("a renewal took the lease back over a final receipt: %v %v", ok, err)
	}
	if err := s.ReplaceReceipt(ctx, "u", "s", "resp_1", 1, inProgress); !errors.Is(err, store.ErrReceiptFinal) {
		t.Fatalf("replacing a final receipt: %v, want ErrReceiptFinal", err)
	}
	err = s.CommitResponse(ctx, store.Commit{User: "u", Session: "s", ResponseID: "resp_1", Replica: "r1",
		Receipt: completed, Messages: [][]byte{[]byte(`{"id":"m"}`)}, Events: evs(0, 0), Release: true})
	if !errors.Is(err, store.ErrReceiptFinal) {
		t.Fatalf("commit over a final receipt: %v, want ErrReceiptFinal", err)
	}
	if got, _, _ := s.Receipt(ctx, "u", "s", "resp_1"); string(got) != string(final) {
		t.Fatalf("receipt %s, want %s", got, final)
	}
	if msgs, _ := s.Messages(ctx, "u", "s", 0, 10); len(msgs) != 0 {
		t.Fatalf("a refused commit wrote the transcript: %d messages", len(msgs))
	}
	if got, _ := s.EventsAfter(ctx, "u", "s", "resp_1", -1, 10); len(got) != 0 {
		t.Fatalf("a refused commit wrote events: %v", sequences(got))
	}
	// Every final status is final; statuses are read from the envelope.
	for i, r := range []string{`{"status":"completed"}`, `{"status":"cancelled"}`, `{"status":"denied"}`, `{"metadata":{"status":"x"},"status":"failed"}`} {
		rid := "resp_f" + string(rune('a'+i))
		if err := s.ReplaceReceipt(ctx, "u", "s", rid, 1, []byte(r)); err != nil {
			t.Fatal(err)
		}
		if err := s.ReplaceReceipt(ctx, "u", "s", rid, 1, inProgress); !errors.Is(err, store.ErrReceiptFinal) {
			t.Fatalf("%s is not final: %v", r, err)
		}
	}
}

// The store keeps copies: a caller reusing its buffers after a commit does
// not change what is stored.
func commitKeepsTheCallersBuffer(t *testing.T, s store.Store) {
	receipt := []byte(`{"status":"in_progress"}`)
	b := beginArgs("u", "s", "resp_1", true, time.Minute)
	b.Receipt = receipt
	if _, err := s.BeginResponse(ctx, b); err != nil {
		t.Fatal(err)
	}
	copy(receipt, `{"status":"completed!"}`)
	if got, _, _ := s.Receipt(ctx, "u", "s", "resp_1"); string(got) != `{"status":"in_progress"}` {
		t.Fatalf("receipt follows the caller's buffer: %s", got)
	}
	event := []byte(`{"sequence":0}`)
	msg := []byte(`{"id":"m1"}`)
	err := s.CommitResponse(ctx, store.Commit{User: "u", Session: "s", ResponseID: "resp_1", Receipt: receipt,
		Events: []store.Event{{Sequence: 0, Type: "x", JSON: event}}, Messages: [][]byte{msg}, Release: true})
	if err != nil {
		t.Fatal(err)
	}
	copy(event, `{"sequence":9}`)
	copy(msg, `{"id":"m9"}`)
	if got, _ := s.EventsAfter(ctx, "u", "s", "resp_1", -1, 1); len(got) != 1 || string(got[0].JSON) != `{"sequence":0}` {
		t.Fatalf("event follows the caller's buffer: %+v", got)
	}
	if got, _ := s.Messages(ctx, "u", "s", 0, 1); len(got) != 1 || string(got[0].JSON) != `{"id":"m1"}` {
		t.Fatalf("message follows the caller's buffer: %+v", got)
	}
}

// beginNeverReusesAnID: a caller that chooses a response's ID (a
// schedule's fire) and begins it again gets ErrResponseExists, and the
// receipt it had, final or not, stays as it was.
func beginNeverReusesAnID(t *testing.T, s store.Store) {
	mustBegin(t, s, "u", "s", "resp_1", true, time.Minute)
	again := store.Begin{User: "u", Session: "s", ResponseID: "resp_1", Receipt: []byte(`{"status":"in_progress","again":true}`), Lease: time.Minute, Replica: "r2", Now: "t3"}
	err := s.CommitResponse(ctx, store.Commit{User: "u", Session: "s", ResponseID: "resp_1", Receipt: completed, Release: true, Replica: "r1", Now: "t2"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.BeginResponse(ctx, again); !errors.Is(err, store.ErrResponseExists) {
		t.Fatalf("begin of a final response again: %v, want ErrResponseExists", err)
	}
	if got, _, _ := s.Receipt(ctx, "u", "s", "resp_1"); string(got) != string(completed) {
		t.Fatalf("receipt after the refused begin: %s, want it final as it was", got)
	}
	// Refused, it took no lease: the session is free for another response.
	mustBegin(t, s, "u", "s", "resp_2", false, time.Minute)
}
