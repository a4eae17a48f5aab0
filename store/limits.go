package store

import (
	"context"
	"time"
)

// Limits are the per-user limits of turns every replica shares: turns per
// UTC day, and slots for the responses in progress at once, each held
// under a lease so that the slots of a replica that died come back by
// themselves. The core (runtime's UserLimits) enforces them.
type Limits interface {
	// AddUserDayCount adds by (negative: gives back) to user's counter
	// name of the UTC day of now when the sum stays at most limit (limit
	// < 0: always), and returns the counter after the call and whether it
	// added. Counters last two days.
	AddUserDayCount(ctx context.Context, user, name string, by, limit int64, now time.Time) (count int64, ok bool, err error)
	// TakeUserSlot gives holder one of user's slots until now+lease when
	// fewer than limit live slots are held (a slot whose lease ended
	// before or at now is not held). It returns the live slots held after
	// the call and whether holder got one; a holder that already holds a
	// slot keeps it and has it renewed.
	TakeUserSlot(ctx context.Context, user, holder string, limit int, lease time.Duration, now time.Time) (held int, ok bool, err error)
	// RenewUserSlot holds holder's live slot until now+lease, whatever
	// the limit. A slot that lapsed (its holder's replica stalled past the
	// lease) or was never taken is taken again only while fewer than
	// limit live slots are held, as TakeUserSlot would: ok is false when
	// it could not be, and holder then holds no slot.
	RenewUserSlot(ctx context.Context, user, holder string, limit int, lease time.Duration, now time.Time) (ok bool, err error)
	// ReleaseUserSlot gives holder's slot back; without one it does
	// nothing.
	ReleaseUserSlot(ctx context.Context, user, holder string) error
}

// UserWindows are the per-user request counters every replica shares, in
// fixed windows. The HTTP rate limiter (internal/httpapi's RateLimit)
// counts requests with them.
type UserWindows interface {
	// TakeUserWindow counts one request of w.User in the fixed window of
	// length w.Window that holds now. Windows start at whole multiples of
	// w.Window since the Unix epoch. When the window already counted
	// w.Limit requests it counts nothing and returns false and the time
	// until the window ends. Windows last two of their lengths.
	TakeUserWindow(ctx context.Context, w UserWindow, now time.Time) (ok bool, retryAfter time.Duration, err error)
}

// UserWindow names one user's fixed-window rate counter: Name for what it
// counts (such as "requests"), at most Limit in each Window.
type UserWindow struct {
	User, Name string
	Limit      int
	Window     time.Duration
}
