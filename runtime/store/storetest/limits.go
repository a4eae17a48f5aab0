package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/harnest/harnest/runtime/store"
)

// The contract of per-user rate limits: fixed windows, daily counters and
// the leased slots of responses in progress.

// limitsUser is a user ID with the characters that separate key parts.
const limitsUser = "bob:{l}%"

func testLimits(t *testing.T, h Harness) {
	t.Run("Windows", func(t *testing.T) { testUserWindows(t, h) })
	t.Run("Days", func(t *testing.T) { testUserDays(t, h) })
	t.Run("Slots", func(t *testing.T) { testUserSlots(t, h) })
}

func testUserWindows(t *testing.T, h Harness) {
	st, ctx := h.Open(t, 0), context.Background()
	// 15 s into a minute, so the window ends in 45 s.
	now := time.UnixMilli(time.Now().UnixMilli()/60_000*60_000 + 15_000)
	w := store.UserWindow{User: limitsUser, Name: "requests", Limit: 2, Window: time.Minute}
	for i := 0; i < 2; i++ {
		if ok, _, err := st.TakeUserWindow(ctx, w, now); err != nil || !ok {
			t.Fatalf("request %d: %v %v", i+1, ok, err)
		}
	}
	for i := 0; i < 2; i++ { // refused requests are not counted, and stay refused
		ok, wait, err := st.TakeUserWindow(ctx, w, now.Add(5*time.Second))
		if err != nil || ok || wait != 40*time.Second {
			t.Fatalf("a request past the limit: %v, wait %v, %v; want refused for 40s", ok, wait, err)
		}
	}
	other := w
	other.User = "bob"
	if ok, _, _ := st.TakeUserWindow(ctx, other, now); !ok {
		t.Fatal("another user's window is spent")
	}
	other = w
	other.Name = "uploads"
	if ok, _, _ := st.TakeUserWindow(ctx, other, now); !ok {
		t.Fatal("another counter's window is spent")
	}
	if ok, _, _ := st.TakeUserWindow(ctx, w, now.Add(45*time.Second)); !ok {
		t.Fatal("the next window is spent")
	}
	if _, _, err := st.TakeUserWindow(ctx, store.UserWindow{User: limitsUser, Name: "x", Limit: 1}, now); err == nil {
		t.Fatal("a window of no length was accepted")
	}
}

func testUserDays(t *testing.T, h Harness) {
	st, ctx := h.Open(t, 0), context.Background()
	now := time.Date(2026, 3, 1, 23, 0, 0, 0, time.UTC)
	for i := int64(1); i <= 2; i++ {
		if n, ok, err := st.AddUserDayCount(ctx, limitsUser, "turns", 1, 2, now); err != nil || !ok || n != i {
			t.Fatalf("turn %d: %d %v %v", i, n, ok, err)
		}
	}
	if n, ok, err := st.AddUserDayCount(ctx, limitsUser, "turns", 1, 2, now); err != nil || ok || n != 2 {
		t.Fatalf("the third turn: %d %v %v; want refused at 2", n, ok, err)
	}
	if n, ok, _ := st.AddUserDayCount(ctx, limitsUser, "turns", -1, -1, now); !ok || n != 1 {
		t.Fatalf("giving one back: %d %v; want 1", n, ok)
	}
	if n, ok, _ := st.AddUserDayCount(ctx, "bob", "turns", 1, 2, now); !ok || n != 1 {
		t.Fatalf("another user's day: %d %v; want 1", n, ok)
	}
	if n, ok, _ := st.AddUserDayCount(ctx, limitsUser, "turns", 1, 2, now.Add(time.Hour)); !ok || n != 1 {
		t.Fatalf("the next UTC day: %d %v; want a fresh counter at 1", n, ok)
	}
}

func testUserSlots(t *testing.T, h Harness) {
	st, ctx := h.Open(t, 0), context.Background()
	now, lease := time.Now(), 10*time.Second
	take := func(holder string, at time.Time) (int, bool) {
		t.Helper()
		held, ok, err := st.TakeUserSlot(ctx, limitsUser, holder, 2, lease, at)
		if err != nil {
			t.Fatal(err)
		}
		return held, ok
	}
	if held, ok := take("a", now); !ok || held != 1 {
		t.Fatalf("first slot: %d %v", held, ok)
	}
	if held, ok := take("b", now); !ok || held != 2 {
		t.Fatalf("second slot: %d %v", held, ok)
	}
	if held, ok := take("c", now); ok || held != 2 {
		t.Fatalf("a third slot past the limit of 2: %d %v", held, ok)
	}
	if held, ok := take("a", now); !ok || held != 2 {
		t.Fatalf("a holder taking its slot again: %d %v; want kept", held, ok)
	}
	if _, ok, _ := st.TakeUserSlot(ctx, "bob", "c", 2, lease, now); !ok {
		t.Fatal("another user's slots are taken")
	}
	if err := st.ReleaseUserSlot(ctx, limitsUser, "a"); err != nil {
		t.Fatal(err)
	}
	if err := st.ReleaseUserSlot(ctx, limitsUser, "nobody"); err != nil {
		t.Fatalf("giving back a slot never taken: %v", err)
	}
	if held, ok := take("c", now); !ok || held != 2 {
		t.Fatalf("a slot after one was given back: %d %v", held, ok)
	}
	// b is renewed; c is not, as if its replica had died: its slot lapses.
	if err := st.RenewUserSlot(ctx, limitsUser, "b", lease, now.Add(8*time.Second)); err != nil {
		t.Fatal(err)
	}
	if held, ok := take("d", now.Add(9*time.Second)); ok || held != 2 {
		t.Fatalf("a slot before the lease ended: %d %v; want refused", held, ok)
	}
	if held, ok := take("d", now.Add(lease)); !ok || held != 2 {
		t.Fatalf("a slot once a dead holder's lease ended: %d %v; want b and d", held, ok)
	}
	// A renewal takes the slot again whatever the limit: it is running.
	if err := st.RenewUserSlot(ctx, limitsUser, "c", lease, now.Add(lease)); err != nil {
		t.Fatal(err)
	}
	if held, ok := take("e", now.Add(lease)); ok || held != 3 {
		t.Fatalf("after a lapsed slot was renewed: %d %v; want 3 held", held, ok)
	}
	if held, ok := take("e", now.Add(3*lease)); !ok || held != 1 {
		t.Fatalf("once every lease ended: %d %v; want only e", held, ok)
	}
}
