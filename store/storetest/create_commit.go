package storetest

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/harnest/harnest/store"
)

// testCreatingCommits is the contract of a commit with CreateSession: the
// first write of a response whose new session skipped BeginResponse makes
// the session as the begin would have.
func testCreatingCommits(t *testing.T, h Harness) {
	subtests(t, h, map[string]func(t *testing.T, s store.Store){
		"MakesTheSession":            creatingCommitMakesTheSession,
		"ItsLogReadsFromAnyPosition": creatingCommitItsLogReadsFromAnyPosition,
		"MustRelease":                creatingCommitMustRelease,
		"WrittenAgainChangesNothing": creatingCommitWrittenAgainChangesNothing,
		"ItsReceiptIsFinal":          creatingCommitItsReceiptIsFinal,
		"OtherSessionsUntouched":     creatingCommitOtherSessionsUntouched,
	})
	t.Run("ExpiresAsAnyOther", func(t *testing.T) { creatingCommitExpiresAsAnyOther(t, h) })
}

func creatingCommitMakesTheSession(t *testing.T, s store.Store) {
	failed := func(store.Lapsed, []byte) []byte { return []byte(`{"status":"failed"}`) }
	err := s.CommitResponse(ctx, creatingCommit("u", "s", "resp_1"))
	if err != nil {
		t.Fatal(err)
	}
	sess, found, err := s.GetSession(ctx, "u", "s")
	if err != nil || !found || sess.CreatedAt != "t1" || sess.UpdatedAt != "t1" || string(sess.State["k"]) != `"v"` {
		t.Fatalf("session %+v %v %v", sess, found, err)
	}
	if list, err := s.ListSessions(ctx, "u", "", 10); err != nil || len(list) != 1 || list[0].ID != "s" {
		t.Fatalf("listed %+v %v", list, err)
	}
	if got, _, _ := s.Receipt(ctx, "u", "s", "resp_1"); string(got) != string(completed) {
		t.Fatalf("receipt %s", got)
	}
	if events, _ := s.EventsAfter(ctx, "u", "s", "resp_1", -1, 10); len(events) != 2 {
		t.Fatalf("events %+v", events)
	}
	if msgs, _ := s.Messages(ctx, "u", "s", 0, 10); len(msgs) != 2 || msgs[1].Offset != 1 {
		t.Fatalf("messages %+v", msgs)
	}
	// Released: no lease is left, and no run to sweep.
	mustBegin(t, s, "u", "s", "resp_2", false, time.Minute)
	finish(t, s, "u", "s", "resp_2")
	if msgs, _ := s.Messages(ctx, "u", "s", 0, 10); len(msgs) != 2 {
		t.Fatalf("the next turn's commit moved the transcript: %+v", msgs)
	}
	if swept, err := s.SweepLapsed(ctx, time.Now().Add(time.Hour), 10, always, failed); err != nil || len(swept) != 0 {
		t.Fatalf("a released new session left a run: %v %v", swept, err)
	}
	// The response belongs to the session: deleted with it.
	if found, err := s.DeleteSession(ctx, "u", "s"); err != nil || !found {
		t.Fatalf("delete: %v %v", found, err)
	}
	if _, found, _ := s.Receipt(ctx, "u", "s", "resp_1"); found {
		t.Fatal("the receipt outlived its session")
	}
	if events, err := s.EventsAfter(ctx, "u", "s", "resp_1", -1, 10); err != nil || len(events) != 0 {
		t.Fatalf("the event log outlived its session: %+v %v", events, err)
	}
}

// The step's events are the response's whole log: read from the
// start, from inside, in pages, and past its end.
func creatingCommitItsLogReadsFromAnyPosition(t *testing.T, s store.Store) {
	c := creatingCommit("u", "s", "resp_1")
	c.Events = []store.Event{ev(0), ev(1), ev(2), ev(3), ev(4)}
	if err := s.CommitResponse(ctx, c); err != nil {
		t.Fatal(err)
	}
	for _, read := range []struct{ after, limit, first, n int }{
		{-1, 0, 0, 5}, {-1, 2, 0, 2}, {1, 2, 2, 2}, {3, 0, 4, 1}, {4, 0, 0, 0}, {9, 3, 0, 0},
	} {
		events, err := s.EventsAfter(ctx, "u", "s", "resp_1", read.after, read.limit)
		if err != nil || len(events) != read.n {
			t.Fatalf("after %d, limit %d: %+v %v, want %d events", read.after, read.limit, events, err, read.n)
		}
		for i, e := range events {
			if e.Sequence != read.first+i || string(e.JSON) != string(ev(read.first+i).JSON) {
				t.Fatalf("after %d, limit %d: event %d is %+v", read.after, read.limit, i, e)
			}
		}
	}
}

// A step that would make its session and keep it is refused, and
// nothing of it is kept: such a response begins first.
func creatingCommitMustRelease(t *testing.T, s store.Store) {
	c := creatingCommit("u", "s", "resp_1")
	c.Release, c.Receipt = false, inProgress
	if err := s.CommitResponse(ctx, c); !errors.Is(err, store.ErrCreateWithoutRelease) {
		t.Fatalf("a step that makes its session and keeps it: %v, want ErrCreateWithoutRelease", err)
	}
	if _, found, _ := s.GetSession(ctx, "u", "s"); found {
		t.Fatal("a refused step made its session")
	}
	if _, found, _ := s.Receipt(ctx, "u", "s", "resp_1"); found {
		t.Fatal("a refused step kept its receipt")
	}
}

// The same final step sent again (its first answer lost: the
// runtime sends a final step until the store takes it) is refused
// as final or written again the same: nothing is there twice.
func creatingCommitWrittenAgainChangesNothing(t *testing.T, s store.Store) {
	for _, session := range []string{"s1", "s2"} {
		c := creatingCommit("u", session, "resp_1")
		if err := s.CommitResponse(ctx, c); err != nil {
			t.Fatal(err)
		}
		if err := s.CommitResponse(ctx, c); err != nil && !errors.Is(err, store.ErrReceiptFinal) {
			t.Fatalf("%s: the step again: %v, want it written or ErrReceiptFinal", session, err)
		}
		if msgs, _ := s.Messages(ctx, "u", session, 0, 10); len(msgs) != 2 {
			t.Fatalf("%s: messages %+v, want 2", session, msgs)
		}
		if events, _ := s.EventsAfter(ctx, "u", session, "resp_1", -1, 10); len(events) != 2 {
			t.Fatalf("%s: events %+v, want 2", session, events)
		}
		if got, _, _ := s.Receipt(ctx, "u", session, "resp_1"); string(got) != string(completed) {
			t.Fatalf("%s: receipt %s", session, got)
		}
		if list, _ := s.ListSessions(ctx, "u", session, 0); len(list) > 0 && list[0].ID == session {
			t.Fatalf("%s: listed after itself", session)
		}
	}
	if list, _ := s.ListSessions(ctx, "u", "", 10); len(list) != 2 {
		t.Fatalf("listed %+v, want the two sessions once each", list)
	}
}

// The step was the response's last: its receipt is final as any
// other, whatever way the store keeps it.
func creatingCommitItsReceiptIsFinal(t *testing.T, s store.Store) {
	if err := s.CommitResponse(ctx, creatingCommit("u", "s", "resp_1")); err != nil {
		t.Fatal(err)
	}
	if err := s.ReplaceReceipt(ctx, "u", "s", "resp_1", 1, inProgress); !errors.Is(err, store.ErrReceiptFinal) {
		t.Fatalf("replacing the receipt: %v, want ErrReceiptFinal", err)
	}
	if renewed, err := s.RenewLease(ctx, "u", "s", "resp_1", "r1", 1, time.Minute); err != nil || renewed {
		t.Fatalf("renewing the finished response's lease: %v %v, want false", renewed, err)
	}
	later := creatingCommit("u", "s", "resp_1")
	later.CreateSession, later.Messages, later.Events = false, [][]byte{[]byte(`{"id":"m3"}`)}, []store.Event{ev(2)}
	if err := s.CommitResponse(ctx, later); !errors.Is(err, store.ErrReceiptFinal) {
		t.Fatalf("a later step of the finished response: %v, want ErrReceiptFinal", err)
	}
	if got, _, _ := s.Receipt(ctx, "u", "s", "resp_1"); string(got) != string(completed) {
		t.Fatalf("receipt %s, want %s", got, completed)
	}
	if msgs, _ := s.Messages(ctx, "u", "s", 0, 10); len(msgs) != 2 {
		t.Fatalf("messages %+v, want 2", msgs)
	}
	mustBegin(t, s, "u", "s", "resp_2", false, time.Minute) // no lease was taken
}

// Redis keeps event logs at least a second (EXPIRE counts seconds).
func creatingCommitExpiresAsAnyOther(t *testing.T, h Harness) {
	const ttl = time.Second
	s := h.Open(t, ttl)
	if err := s.CommitResponse(ctx, creatingCommit("u", "s", "resp_1")); err != nil {
		t.Fatal(err)
	}
	h.Elapse(ttl / 2)
	if _, found, _ := s.Receipt(ctx, "u", "s", "resp_1"); !found {
		t.Fatal("the receipt expired before its TTL")
	}
	h.Elapse(ttl/2 + ttl/4)
	if _, found, _ := s.Receipt(ctx, "u", "s", "resp_1"); found {
		t.Fatal("the receipt outlived its TTL")
	}
	if got, err := s.EventsAfter(ctx, "u", "s", "resp_1", -1, 10); err != nil || len(got) != 0 {
		t.Fatalf("the event log outlived its TTL: %v %v", sequences(got), err)
	}
	if msgs, _ := s.Messages(ctx, "u", "s", 0, 10); len(msgs) != 2 {
		t.Fatalf("the transcript expired with the receipt: %d messages", len(msgs))
	}
}

func creatingCommitOtherSessionsUntouched(t *testing.T, s store.Store) {
	mustBegin(t, s, "u", "old", "resp_0", true, time.Minute)
	if err := s.CommitResponse(ctx, creatingCommit("u", "s", "resp_1")); err != nil {
		t.Fatal(err)
	}
	mustBeBusy(t, s, "old", "resp_2", "the other session's lease")
	if list, _ := s.ListSessions(ctx, "u", "", 10); len(list) != 2 {
		t.Fatalf("listed %+v", list)
	}
}

// creatingCommit is the only step of response rid, which makes the
// user's session: a completed receipt, two events, two messages and a
// state key.
func creatingCommit(user, session, rid string) store.Commit {
	return store.Commit{User: user, Session: session, ResponseID: rid, Receipt: completed,
		Events:        []store.Event{ev(0), ev(1)},
		Messages:      [][]byte{[]byte(`{"id":"m1"}`), []byte(`{"id":"m2"}`)},
		StateDelta:    map[string]json.RawMessage{"k": json.RawMessage(`"v"`)},
		Release:       true,
		CreateSession: true, Replica: "r1", Now: "t1"}
}
