package memstore

import (
	"context"
	"sync"
	"time"

	"github.com/harnest/harnest/store"
)

// usageSpace is the in-process store's usage counters
// (store.UsageCounters): per scope (a user, or everyone) and UTC day, a
// line per backend and model. Days older than store.UsageRetention are
// dropped when their scope is next added to.
type usageSpace struct {
	closed *closedFlag

	mu   sync.Mutex
	days map[usageScope]map[string]map[usageLineKey]*store.UsageLine // scope -> day -> line
}

// usageScope is whose counters: a user's, or everyone's.
type usageScope struct {
	user     string
	everyone bool
}

// usageLineKey names one line of a day.
type usageLineKey struct{ backend, model string }

func newUsageSpace(closed *closedFlag) *usageSpace {
	return &usageSpace{closed: closed, days: map[usageScope]map[string]map[usageLineKey]*store.UsageLine{}}
}

// AddUsage adds lines to user's and everyone's counters of now's day.
func (p *usageSpace) AddUsage(_ context.Context, user string, now time.Time, lines []store.UsageLine) error {
	if err := p.closed.check(); err != nil {
		return err
	}
	if err := checkUsage(lines); err != nil {
		return err
	}
	p.addDay(user, store.UsageDate(now), lines)
	return nil
}

// checkUsage refuses lines with a negative count.
func checkUsage(lines []store.UsageLine) error {
	for _, l := range lines {
		if l.Negative() {
			return store.ErrUsageNegative
		}
	}
	return nil
}

// addDay adds lines to user's and everyone's counters of day. A scope's
// days older than store.UsageRetention before day are dropped when it
// first adds to day: later adds to the same day would drop nothing more.
func (p *usageSpace) addDay(user, day string, lines []store.UsageLine) {
	if len(lines) == 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, scope := range []usageScope{{user: user}, {everyone: true}} {
		days := p.days[scope]
		if days == nil {
			days = map[string]map[usageLineKey]*store.UsageLine{}
			p.days[scope] = days
		}
		counts := days[day]
		if counts == nil {
			dropDaysBefore(days, oldestKept(day))
			counts = map[usageLineKey]*store.UsageLine{}
			days[day] = counts
		}
		for _, l := range lines {
			k := usageLineKey{l.Backend, l.Model}
			c := counts[k]
			if c == nil {
				c = &store.UsageLine{Backend: l.Backend, Model: l.Model}
				counts[k] = c
			}
			c.Add(l)
		}
	}
}

// oldestKept is the oldest day kept beside day ("" for a day that is not
// a date: nothing is dropped).
func oldestKept(day string) string {
	t, err := time.Parse(time.DateOnly, day)
	if err != nil {
		return ""
	}
	return store.UsageDate(t.Add(-store.UsageRetention))
}

// dropDaysBefore deletes the days before oldest.
func dropDaysBefore[V any](days map[string]V, oldest string) {
	for d := range days {
		if d < oldest {
			delete(days, d)
		}
	}
}

// UsageOfDay sums user's counters of now's day.
func (p *usageSpace) UsageOfDay(_ context.Context, user string, now time.Time) (store.UsageLine, error) {
	var sum store.UsageLine
	if err := p.closed.check(); err != nil {
		return sum, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, l := range p.days[usageScope{user: user}][store.UsageDate(now)] {
		sum.Add(*l)
	}
	return sum, nil
}

// ReadUsage reads the counters of q's days.
func (p *usageSpace) ReadUsage(_ context.Context, q store.UsageQuery) ([]store.UsageDay, error) {
	if err := p.closed.check(); err != nil {
		return nil, err
	}
	scope := usageScope{user: q.User}
	if q.Everyone {
		scope = usageScope{everyone: true}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []store.UsageDay
	for _, d := range q.Days {
		counts := p.days[scope][d]
		if len(counts) == 0 {
			continue
		}
		day := store.UsageDay{Date: d, Lines: make([]store.UsageLine, 0, len(counts))}
		for _, l := range counts {
			day.Lines = append(day.Lines, *l)
		}
		store.SortUsageLines(day.Lines)
		out = append(out, day)
	}
	return out, nil
}
