package storetest

import (
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
