package runtime

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestFormatWait(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0:                             "in 1 second",
		1500 * time.Millisecond:       "in 2 seconds",
		40 * time.Second:              "in 40 seconds",
		time.Minute:                   "in 1 minute",
		61 * time.Second:              "in 2 minutes",
		time.Hour:                     "in 1 hour",
		3*time.Hour + 12*time.Minute:  "in 3 hours and 12 minutes",
		23*time.Hour + 59*time.Minute: "in 23 hours and 59 minutes",
	} {
		if got := FormatWait(d); got != want {
			t.Errorf("FormatWait(%s) = %q, want %q", d, got, want)
		}
	}
}

func TestUntilNextUTCDay(t *testing.T) {
	now := time.Date(2026, 3, 1, 22, 30, 0, 0, time.FixedZone("UTC+2", 2*3600)) // 20:30 UTC
	if got := untilNextUTCDay(now); got != 3*time.Hour+30*time.Minute {
		t.Fatalf("until midnight UTC: %s", got)
	}
}

// TestUserLimitsGivenBack: a turn that never started (its session is
// missing) gives back its slot and its turn of the day; one that ran keeps
// its turn and gives back its slot.
func TestUserLimitsGivenBack(t *testing.T) {
	s := newTestService(t, sleepAgent(0), func(o *Options) {
		o.Limits = UserLimits{TurnsPerDay: 1, ConcurrentResponses: 1}
	})
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		_, err := s.StartResponse(ctx, testUser, ResponseRequest{Input: "hi", SessionID: "missing"})
		if !errors.Is(err, ErrNotFound) {
			t.Fatalf("a turn in a missing session: %v", err)
		}
	}
	r, err := s.StartResponse(ctx, testUser, ResponseRequest{Input: "hi"})
	if err != nil {
		t.Fatalf("the day's one turn: %v", err)
	}
	if o := waitDone(t, r); o.Err != nil {
		t.Fatalf("the turn failed: %v", o.Err)
	}
	_, err = s.StartResponse(ctx, testUser, ResponseRequest{Input: "again"})
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeRateLimited || e.RetryAfter <= 0 || e.RetryAfter > 24*time.Hour {
		t.Fatalf("a second turn today: %v; want rate_limited until midnight UTC", err)
	}
	held, ok, err := s.store.TakeUserSlot(ctx, testUser.UserID, "probe", 1, time.Second, time.Now())
	if err != nil || !ok || held != 1 {
		t.Fatalf("the slot was not given back: %d %v %v", held, ok, err)
	}
}

// TestThawedResponseDoesNotRunPastTheLimit: a replica that stalled past
// the lease finds, when it thaws, that its responses' slots lapsed and the
// user's other responses took them. Its renewals do not take them back
// past the limit: those responses end with rate_limited, and the user's
// responses in progress never exceed the limit.
func TestThawedResponseDoesNotRunPastTheLimit(t *testing.T) {
	const limit = 2
	s := newTestService(t, sleepAgent(time.Minute), func(o *Options) {
		o.Limits = UserLimits{ConcurrentResponses: limit}
		o.Lease = 3 * time.Second
	})
	ctx := context.Background()
	var stalled []*Response
	for i := 0; i < limit; i++ {
		r, err := s.StartResponse(ctx, testUser, ResponseRequest{Input: "hi", Background: true})
		if err != nil {
			t.Fatal(err)
		}
		stalled = append(stalled, r)
	}
	// The stall: no renewal runs, the slots lapse (as a store drops lapsed
	// slots), and two responses of another replica take them.
	for _, r := range stalled {
		r.limits.renewing.Lock()
		if err := s.store.ReleaseUserSlot(ctx, testUser.UserID, r.ID); err != nil {
			t.Fatal(err)
		}
	}
	for _, other := range []string{"resp_elsewhere_1", "resp_elsewhere_2"} {
		if _, ok, err := s.store.TakeUserSlot(ctx, testUser.UserID, other, limit, time.Minute, time.Now()); err != nil || !ok {
			t.Fatalf("another replica's response takes a lapsed slot: %v %v", ok, err)
		}
	}
	// The thaw: each renewal finds the limit reached.
	for _, r := range stalled {
		r.limits.renewing.Unlock()
		r.limits.renewSlot()
	}
	for _, r := range stalled {
		o := waitDone(t, r)
		if o.Err == nil || o.Err.Code != CodeRateLimited || !strings.Contains(o.Err.Detail, "stalled") {
			t.Fatalf("a thawed response whose slot was taken: %+v; want rate_limited saying it stalled", o.Err)
		}
		if o.Envelope.Status != StatusFailed {
			t.Errorf("its receipt is %s, want failed", o.Envelope.Status)
		}
	}
	held, ok, err := s.store.TakeUserSlot(ctx, testUser.UserID, "probe", limit, time.Minute, time.Now())
	if err != nil || ok || held != limit {
		t.Fatalf("slots held after the thaw: %d (probe taken %v, %v); want the other replica's %d only", held, ok, err, limit)
	}
}
