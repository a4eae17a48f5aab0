package storetest

import (
	"testing"
	"time"

	"github.com/harnest/harnest/store"
)

// The contract of per-user rate limits: fixed windows, daily counters and
// the leased slots of responses in progress.

// limitsUser is a user ID with the characters that separate key parts.
const limitsUser = "bob:{l}%"

func testLimits(t *testing.T, h Harness) {
	subtests(t, h, map[string]func(t *testing.T, s store.Store){
		"Windows": testUserWindows,
		"Days":    testUserDays,
		"Slots":   testUserSlots,
	})
}

func testUserWindows(t *testing.T, st store.Store) {
	// 15 s into a minute, so the window ends in 45 s.
	now := time.UnixMilli(time.Now().UnixMilli()/60_000*60_000 + 15_000)
	w := store.UserWindow{User: limitsUser, Name: "requests", Limit: 2, Window: time.Minute}
	mustTakeN(t, 2, func() (bool, time.Duration, error) { return st.TakeUserWindow(ctx, w, now) })
	for range 2 { // refused requests are not counted, and stay refused
		mustWait(t, "a request past the limit", 40*time.Second, func() (bool, time.Duration, error) {
			return st.TakeUserWindow(ctx, w, now.Add(5*time.Second))
		})
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

// mustTakeN takes n times from a window, failing the test unless each
// take is allowed.
func mustTakeN(t *testing.T, n int, take func() (ok bool, wait time.Duration, err error)) {
	t.Helper()
	for i := range n {
		if ok, _, err := take(); err != nil || !ok {
			t.Fatalf("request %d: %v %v", i+1, ok, err)
		}
	}
}

// mustWait takes from a spent window, failing the test unless the take
// is refused with want to wait (until the window ends).
func mustWait(t *testing.T, what string, want time.Duration, take func() (ok bool, wait time.Duration, err error)) {
	t.Helper()
	if ok, wait, err := take(); err != nil || ok || wait != want {
		t.Fatalf("%s: %v, wait %v, %v; want refused for %v", what, ok, wait, err, want)
	}
}

func testUserDays(t *testing.T, st store.Store) {
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

func testUserSlots(t *testing.T, st store.Store) {
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
	renew := func(holder string, limit int, at time.Time) bool {
		t.Helper()
		ok, err := st.RenewUserSlot(ctx, limitsUser, holder, limit, lease, at)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	// b is renewed; c is not, as if its replica had died: its slot lapses.
	if !renew("b", 2, now.Add(8*time.Second)) {
		t.Fatal("renewing a live slot was refused")
	}
	if held, ok := take("d", now.Add(9*time.Second)); ok || held != 2 {
		t.Fatalf("a slot before the lease ended: %d %v; want refused", held, ok)
	}
	if held, ok := take("d", now.Add(lease)); !ok || held != 2 {
		t.Fatalf("a slot once a dead holder's lease ended: %d %v; want b and d", held, ok)
	}
	// c's replica thaws: its lapsed slot is not taken back past the limit,
	// nor is a slot never taken.
	if renew("c", 2, now.Add(lease)) {
		t.Fatal("a lapsed slot was taken back past the limit")
	}
	if renew("never", 2, now.Add(lease)) {
		t.Fatal("a renewal took a slot never taken past the limit")
	}
	if held, ok := take("e", now.Add(lease)); ok || held != 2 {
		t.Fatalf("after refused renewals: %d %v; want b and d held, 2", held, ok)
	}
	// A live slot is renewed whatever the limit (here lowered to 1).
	if !renew("b", 1, now.Add(lease)) {
		t.Fatal("a live slot was not renewed under a lower limit")
	}
	// Below the limit, a lapsed slot is taken back.
	if err := st.ReleaseUserSlot(ctx, limitsUser, "d"); err != nil {
		t.Fatal(err)
	}
	if !renew("c", 2, now.Add(lease)) {
		t.Fatal("a lapsed slot was not taken back below the limit")
	}
	if held, ok := take("e", now.Add(lease)); ok || held != 2 {
		t.Fatalf("after c took its slot back: %d %v; want b and c held, 2", held, ok)
	}
	if held, ok := take("e", now.Add(3*lease)); !ok || held != 1 {
		t.Fatalf("once every lease ended: %d %v; want only e", held, ok)
	}
}
