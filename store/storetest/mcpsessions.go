package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/harnest/harnest/store"
)

// testMCPSessions is the contract of the MCP door's live sessions.
func testMCPSessions(t *testing.T, h Harness) {
	t.Run("Lifecycle", func(t *testing.T) { testMCPSessionLifecycle(t, open(t, h)) })
	t.Run("IdleExpiry", func(t *testing.T) { testMCPSessionIdle(t, h) })
}

func touchMCP(t *testing.T, st store.Store, user, id string, idle time.Duration) bool {
	t.Helper()
	ok, err := st.TouchMCPSession(context.Background(), user, id, idle)
	if err != nil {
		t.Fatalf("TouchMCPSession(%q, %q): %v", user, id, err)
	}
	return ok
}

// testMCPSessionLifecycle: put makes a session live for its user only;
// delete ends it once; a touch never brings one back.
func testMCPSessionLifecycle(t *testing.T, st store.Store) {
	if touchMCP(t, st, "u", "s1", time.Minute) {
		t.Fatal("a session never put is live")
	}
	if err := st.PutMCPSession(ctx, "u", "s1", time.Minute); err != nil {
		t.Fatal(err)
	}
	if !touchMCP(t, st, "u", "s1", time.Minute) {
		t.Fatal("a session just put is not live")
	}
	if touchMCP(t, st, "other", "s1", time.Minute) || touchMCP(t, st, "u:s1", "", time.Minute) {
		t.Fatal("another user's session is live for a user who never put it")
	}
	if gone, err := st.DeleteMCPSession(ctx, "other", "s1"); err != nil || gone {
		t.Fatalf("another user deletes the session: %v %v", gone, err)
	}
	if gone, err := st.DeleteMCPSession(ctx, "u", "s1"); err != nil || !gone {
		t.Fatalf("DeleteMCPSession: %v %v, want true", gone, err)
	}
	if touchMCP(t, st, "u", "s1", time.Minute) {
		t.Fatal("a deleted session is live")
	}
	if gone, err := st.DeleteMCPSession(ctx, "u", "s1"); err != nil || gone {
		t.Fatalf("deleting twice: %v %v, want false", gone, err)
	}
}

// testMCPSessionIdle: a session ends after idle without a touch; a touch
// restarts its clock.
func testMCPSessionIdle(t *testing.T, h Harness) {
	ctx := context.Background()
	st := h.Open(t, 0)
	const idle = time.Second
	for _, id := range []string{"idle", "touched"} {
		if err := st.PutMCPSession(ctx, "u", id, idle); err != nil {
			t.Fatal(err)
		}
	}
	h.Elapse(700 * time.Millisecond)
	if !touchMCP(t, st, "u", "touched", idle) {
		t.Fatal("a session is not live before its idle time")
	}
	h.Elapse(700 * time.Millisecond)
	if touchMCP(t, st, "u", "idle", idle) {
		t.Fatal("a session idle for longer than its idle time is live")
	}
	if !touchMCP(t, st, "u", "touched", idle) {
		t.Fatal("a touched session ended before idle after its touch")
	}
}
