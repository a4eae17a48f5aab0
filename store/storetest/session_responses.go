package storetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/harnest/harnest/store"
)

// testSessionStatus is the contract of ActiveResponse: the response that
// holds the session's lease now, and nothing once it is released or
// lapsed, for the session's own user only.
func testSessionStatus(t *testing.T, h Harness) {
	s := open(t, h)
	active := func(user, session, want string) {
		t.Helper()
		got, err := s.ActiveResponse(ctx, user, session)
		if err != nil || got != want {
			t.Fatalf("ActiveResponse(%s, %s) = %q, %v; want %q", user, session, got, err, want)
		}
	}
	active("u", "missing", "")
	if err := s.CreateSession(ctx, "u", "s", nil, "t"); err != nil {
		t.Fatal(err)
	}
	active("u", "s", "")
	mustBegin(t, s, "u", "s", "resp_1", false, time.Minute)
	active("u", "s", "resp_1")
	active("v", "s", "")   // another user's session of that ID
	active("u", "s:x", "") // an ID that only looks like a part of the key
	finish(t, s, "u", "s", "resp_1")
	active("u", "s", "")

	// A lease nobody renews lapses: the session is idle again.
	mustBegin(t, s, "u", "s", "resp_2", false, shortLease)
	active("u", "s", "resp_2")
	h.Elapse(lapse)
	active("u", "s", "")

	var _ store.SessionStatus = s
}

// testSessionResponses is the contract of SessionResponses: a session's
// responses newest first, by sequence from 1 in the order they began
// (also the one step that made its session), paged below a sequence, for
// the session's own user only, gone with the session.
func testSessionResponses(t *testing.T, h Harness) {
	s := open(t, h)
	list := func(user, session string, before int64, limit int) string {
		t.Helper()
		rows, err := s.SessionResponses(ctx, user, session, before, limit)
		if err != nil {
			t.Fatal(err)
		}
		out := ""
		for _, r := range rows {
			out += fmt.Sprintf("%s@%d ", r.ID, r.Seq)
		}
		return out
	}
	want := func(got, want string) {
		t.Helper()
		if got != want {
			t.Fatalf("responses %q, want %q", got, want)
		}
	}
	if err := s.CommitResponse(ctx, creatingCommit("u", "s", "resp_1")); err != nil {
		t.Fatal(err)
	}
	for i := 2; i <= 5; i++ {
		rid := fmt.Sprintf("resp_%d", i)
		mustBegin(t, s, "u", "s", rid, false, time.Minute)
		finish(t, s, "u", "s", rid)
	}
	want(list("u", "s", 0, 2), "resp_5@5 resp_4@4 ")
	want(list("u", "s", 4, 10), "resp_3@3 resp_2@2 resp_1@1 ")
	want(list("u", "s", 1, 10), "")
	want(list("u", "s", 99, 1), "resp_5@5 ")
	want(list("v", "s", 0, 10), "")
	want(list("u", "other", 0, 10), "")
	// A refused begin is not listed.
	mustBegin(t, s, "u", "s", "resp_6", false, time.Minute)
	if _, err := s.BeginResponse(ctx, beginArgs("u", "s", "resp_7", false, time.Minute)); err == nil {
		t.Fatal("second begin on a held session succeeded")
	}
	want(list("u", "s", 0, 2), "resp_6@6 resp_5@5 ")
	finish(t, s, "u", "s", "resp_6")

	// Deleted with its session; a new session of that ID starts again.
	if found, err := s.DeleteSession(ctx, "u", "s"); !found || err != nil {
		t.Fatalf("delete: %v %v", found, err)
	}
	want(list("u", "s", 0, 10), "")
	mustBegin(t, s, "u", "s", "resp_8", true, time.Minute)
	want(list("u", "s", 0, 10), "resp_8@1 ")
}
