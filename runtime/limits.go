package runtime

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// UserLimits are per-user limits that every replica sharing the store
// enforces together, on every transport (0: no limit). Without auth every
// caller is the anonymous user and shares one allowance.
type UserLimits struct {
	// TurnsPerDay bounds a user's new turns per UTC day. A turn resumed
	// after an approval or a client tool is the same turn.
	TurnsPerDay int
	// ConcurrentResponses bounds a user's responses in progress at once,
	// a response waiting for an approval or a client tool included.
	ConcurrentResponses int
	// TokensPerDay bounds a user's model tokens (input plus output) per
	// UTC day, and CostPerDayMicros their cost in micro-dollars: a new
	// turn is refused once the day's usage reached either (usage.go).
	TokensPerDay, CostPerDayMicros int64
}

// CodeRateLimited is the code of a refusal by a per-user rate limit.
const CodeRateLimited = "rate_limited"

// dayTurnsCounter names the daily counter of turns in the store.
const dayTurnsCounter = "turns"

// concurrentRetryAfter is what a caller refused for too many responses in
// progress is told to wait: a response usually ends within seconds.
const concurrentRetryAfter = 2 * time.Second

// RateLimitedError is the refusal of a per-user rate limit: Detail says
// which limit and when to come back, RetryAfter how long to wait.
func RateLimitedError(retryAfter time.Duration, format string, args ...any) *Error {
	return &Error{Kind: ErrRateLimited, Code: CodeRateLimited, Detail: fmt.Sprintf(format, args...), RetryAfter: retryAfter}
}

// FormatWait says a wait as a person would ("in 40 seconds", "in 3 hours
// and 12 minutes"), rounded up to whole seconds (under a minute) or whole
// minutes.
func FormatWait(d time.Duration) string {
	plural := func(n int64, unit string) string {
		if n == 1 {
			return fmt.Sprintf("1 %s", unit)
		}
		return fmt.Sprintf("%d %ss", n, unit)
	}
	if d < time.Minute {
		return "in " + plural(max(1, int64((d+time.Second-1)/time.Second)), "second")
	}
	minutes := int64((d + time.Minute - 1) / time.Minute)
	if minutes < 60 {
		return "in " + plural(minutes, "minute")
	}
	if minutes%60 == 0 {
		return "in " + plural(minutes/60, "hour")
	}
	return "in " + plural(minutes/60, "hour") + " and " + plural(minutes%60, "minute")
}

// userHold is what one response took of its user's limits: a slot among
// the responses in progress (renewed every third of the lease while the
// response lives, so a replica that dies frees it after one lease) and one
// of the day's turns. A nil hold took nothing.
type userHold struct {
	svc               *Service
	user, holder      string
	slot, turnCounted bool
	// lost ends the response when its slot lapsed and could not be taken
	// back within the limit (slotLost).
	lost func()

	mu       sync.Mutex
	renew    *time.Timer
	released bool
	// renewing is held while a renewal talks to the store, so that the
	// release waits for it: a renewal that landed after the release would
	// take the slot again (RenewUserSlot re-takes a lapsed slot within the
	// limit).
	renewing sync.Mutex
}

// takeUserLimits takes a slot and one of the day's turns for a new
// response of user, or refuses it with RateLimitedError. Nothing is held
// when it fails. lost is called, at most once, when the response's slot
// lapsed (its replica stalled past the lease) and the user's other
// responses took it meanwhile: the response must end then, not run past
// the limit.
func (s *Service) takeUserLimits(ctx context.Context, user, responseID string, lost func()) (*userHold, error) {
	l := s.limits
	if err := s.checkUsageBudget(ctx, user); err != nil {
		return nil, err
	}
	if l.ConcurrentResponses <= 0 && l.TurnsPerDay <= 0 {
		return nil, nil
	}
	h := &userHold{svc: s, user: user, holder: responseID, lost: lost}
	now := s.now()
	if l.ConcurrentResponses > 0 {
		_, ok, err := s.store.TakeUserSlot(ctx, user, responseID, l.ConcurrentResponses, s.lease, now)
		if err != nil {
			return nil, s.storeFailure(err)
		}
		if !ok {
			return nil, RateLimitedError(concurrentRetryAfter,
				"You already have %d responses in progress, the most allowed at once; retry %s, or once one of them has finished",
				l.ConcurrentResponses, FormatWait(concurrentRetryAfter))
		}
		h.slot = true
	}
	if l.TurnsPerDay > 0 {
		_, ok, err := s.store.AddUserDayCount(ctx, user, dayTurnsCounter, 1, int64(l.TurnsPerDay), now)
		if err != nil || !ok {
			h.giveBack()
		}
		if err != nil {
			return nil, s.storeFailure(err)
		}
		if !ok {
			wait := untilNextUTCDay(now)
			return nil, RateLimitedError(wait,
				"You have used all %d of your turns for today (UTC); come back %s, after midnight UTC",
				l.TurnsPerDay, FormatWait(wait))
		}
		h.turnCounted = true
	}
	if h.slot {
		h.mu.Lock()
		h.renew = time.AfterFunc(s.lease/3, h.renewSlot)
		h.mu.Unlock()
	}
	return h, nil
}

// untilNextUTCDay is the time from now to the next midnight UTC.
func untilNextUTCDay(now time.Time) time.Duration {
	y, m, d := now.UTC().Date()
	return time.Date(y, m, d+1, 0, 0, 0, 0, time.UTC).Sub(now)
}

// renewSlot extends the slot's lease, then schedules the next renewal. A
// slot that lapsed meanwhile (this replica stalled past the lease) is
// taken back only within the limit; when the user's other responses took
// it, the response no longer counts as admitted and is ended (slotLost).
func (h *userHold) renewSlot() {
	s := h.svc
	h.renewing.Lock()
	h.mu.Lock()
	released := h.released
	h.mu.Unlock()
	if released { // released while this renewal waited to start
		h.renewing.Unlock()
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.lease/3)
	ok, err := s.store.RenewUserSlot(ctx, h.user, h.holder, s.limits.ConcurrentResponses, s.lease, s.now())
	cancel()
	h.renewing.Unlock()
	switch {
	case err != nil:
		s.log.Warn("cannot renew a response's slot among its user's responses in progress", "responseId", h.holder, "err", err)
	case !ok:
		s.log.Warn("a response lost its slot among its user's responses in progress while its replica stalled, and the limit is reached: it is ended",
			"responseId", h.holder, "limit", s.limits.ConcurrentResponses)
		if h.stop() && h.lost != nil { // it holds no slot: nothing to give back
			h.lost()
		}
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.released {
		h.renew.Reset(s.lease / 3)
	}
}

// slotLostError ends a response whose slot lapsed while its replica
// stalled and was taken by the user's other responses: it may not run past
// the limit of responses in progress.
func slotLostError(limit int) *Error {
	return RateLimitedError(concurrentRetryAfter,
		"This response was stopped (concurrency limit): its server stalled, its place among the %d responses you may have in progress at once lapsed meanwhile and your other responses took it; retry it %s, or once one of them has finished",
		limit, FormatWait(concurrentRetryAfter))
}

// release gives the slot back when the response ends (its turn still
// counts for the day). Later calls do nothing.
func (h *userHold) release() {
	if h == nil || !h.stop() || !h.slot {
		return
	}
	s := h.svc
	h.renewing.Lock() // a renewal under way lands first
	defer h.renewing.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), s.lease/3)
	defer cancel()
	if err := s.store.ReleaseUserSlot(ctx, h.user, h.holder); err != nil {
		// The lease ends it: the slot comes back after s.lease.
		s.log.Warn("cannot give back a response's slot; it lapses with its lease", "responseId", h.holder, "err", err)
	}
}

// giveBack undoes the hold of a response that never started: the slot and
// the day's turn are given back. Later calls do nothing.
func (h *userHold) giveBack() {
	if h == nil {
		return
	}
	counted := h.turnCounted
	h.release()
	if !counted {
		return
	}
	h.turnCounted = false
	s := h.svc
	ctx, cancel := context.WithTimeout(context.Background(), s.lease/3)
	defer cancel()
	if _, _, err := s.store.AddUserDayCount(ctx, h.user, dayTurnsCounter, -1, -1, s.now()); err != nil {
		s.log.Warn("cannot give back a turn that never started; it counts for today", "user", h.user, "err", err)
	}
}

// stop ends the renewals; false when the hold was already released.
func (h *userHold) stop() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.released {
		return false
	}
	h.released = true
	if h.renew != nil {
		h.renew.Stop()
	}
	return true
}
