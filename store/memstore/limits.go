package memstore

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/harnest/harnest/store"
)

// limitsSpace is the in-process store's per-user rate limits
// (store.Limits): fixed-window counters, daily counters and the slots of
// responses in progress, all under one mutex. What lapsed is dropped by a
// pass over everything at most once a second, made by whichever call comes
// first.
type limitsSpace struct {
	closed *closedFlag

	mu        sync.Mutex
	windows   map[userWindowKey]*userWindowCount
	days      map[userDayKey]int64
	slots     map[string]map[string]time.Time // user -> holder -> end of its lease
	lastSweep time.Time
}

// userWindowKey names one window of one user's counter.
type userWindowKey struct {
	user, name string
	window     int64 // the window's index since the Unix epoch
}

// userWindowCount is a window's count and when it is dropped.
type userWindowCount struct {
	count  int
	dropAt time.Time
}

// userDayKey names one user's counter of one UTC day.
type userDayKey struct{ user, name, day string }

func newLimitsSpace(closed *closedFlag) *limitsSpace {
	return &limitsSpace{closed: closed, windows: map[userWindowKey]*userWindowCount{},
		days: map[userDayKey]int64{}, slots: map[string]map[string]time.Time{}}
}

// TakeUserWindow counts one request in a user's fixed window.
func (p *limitsSpace) TakeUserWindow(_ context.Context, w store.UserWindow, now time.Time) (bool, time.Duration, error) {
	if err := p.closed.check(); err != nil {
		return false, 0, err
	}
	if w.Window < time.Millisecond {
		return false, 0, fmt.Errorf("store: a rate window must be at least a millisecond, not %s", w.Window)
	}
	index := now.UnixMilli() / w.Window.Milliseconds()
	key := userWindowKey{w.User, w.Name, index}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.sweepLocked(now)
	c := p.windows[key]
	if c == nil {
		c = &userWindowCount{dropAt: now.Add(2 * w.Window)}
		p.windows[key] = c
	}
	if c.count >= w.Limit {
		return false, time.UnixMilli((index + 1) * w.Window.Milliseconds()).Sub(now), nil
	}
	c.count++
	return true, 0, nil
}

// AddUserDayCount adds to a user's counter of a UTC day within a limit.
func (p *limitsSpace) AddUserDayCount(_ context.Context, user, name string, by, limit int64, now time.Time) (int64, bool, error) {
	if err := p.closed.check(); err != nil {
		return 0, false, err
	}
	key := userDayKey{user, name, now.UTC().Format(time.DateOnly)}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.sweepLocked(now)
	if limit >= 0 && p.days[key]+by > limit {
		return p.days[key], false, nil
	}
	p.days[key] += by
	return p.days[key], true, nil
}

// TakeUserSlot gives holder one of user's slots when fewer than limit are
// held.
func (p *limitsSpace) TakeUserSlot(_ context.Context, user, holder string, limit int, lease time.Duration, now time.Time) (int, bool, error) {
	return p.takeSlot(user, holder, limit, lease, now)
}

// RenewUserSlot holds holder's live slot until now+lease, or takes a
// lapsed one again when fewer than limit are held, as TakeUserSlot.
func (p *limitsSpace) RenewUserSlot(_ context.Context, user, holder string, limit int, lease time.Duration, now time.Time) (bool, error) {
	_, ok, err := p.takeSlot(user, holder, limit, lease, now)
	return ok, err
}

// takeSlot drops the user's lapsed slots, then gives holder a slot until
// now+lease when it holds one already or fewer than limit are held.
func (p *limitsSpace) takeSlot(user, holder string, limit int, lease time.Duration, now time.Time) (int, bool, error) {
	if err := p.closed.check(); err != nil {
		return 0, false, err
	}
	if lease < time.Millisecond {
		return 0, false, fmt.Errorf("store: a slot's lease must be at least a millisecond, not %s", lease)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.sweepLocked(now)
	held := p.slots[user]
	for h, end := range held {
		if !end.After(now) {
			delete(held, h)
		}
	}
	if _, mine := held[holder]; !mine && len(held) >= limit {
		return len(held), false, nil
	}
	if held == nil {
		held = map[string]time.Time{}
		p.slots[user] = held
	}
	held[holder] = now.Add(lease)
	return len(held), true, nil
}

// ReleaseUserSlot gives holder's slot back.
func (p *limitsSpace) ReleaseUserSlot(_ context.Context, user, holder string) error {
	if err := p.closed.check(); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if held := p.slots[user]; held != nil {
		delete(held, holder)
		if len(held) == 0 {
			delete(p.slots, user)
		}
	}
	return nil
}

// sweepLocked drops lapsed windows, days older than two days and lapsed
// slots, at most once a second, so the maps do not grow with every user
// ever seen.
func (p *limitsSpace) sweepLocked(now time.Time) {
	if now.Sub(p.lastSweep) < time.Second && !now.Before(p.lastSweep) {
		return
	}
	p.lastSweep = now
	for k, c := range p.windows {
		if !c.dropAt.After(now) {
			delete(p.windows, k)
		}
	}
	oldest := now.UTC().Add(-48 * time.Hour).Format(time.DateOnly)
	for k := range p.days {
		if k.day < oldest {
			delete(p.days, k)
		}
	}
	for user, held := range p.slots {
		for h, end := range held {
			if !end.After(now) {
				delete(held, h)
			}
		}
		if len(held) == 0 {
			delete(p.slots, user)
		}
	}
}
