package memstore

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/harnest/harnest/store"
)

// routerSpace is the in-process store's router state (store.Router):
// counters per UTC day, breakers, the owner's overrides and receipts, all
// under one mutex (a router turn makes a handful of these calls).
type routerSpace struct {
	closed     *closedFlag
	receiptTTL time.Duration

	mu        sync.Mutex
	counts    map[string]map[string]int64 // UTC day -> counter -> value
	breakers  map[string]*routerBreaker
	overrides store.RouterOverrides
	receipts  []routerReceipt // sorted by key, oldest first
}

// routerBreaker is one harness's breaker.
type routerBreaker struct {
	failures   []time.Time // within the window, oldest first
	openUntil  time.Time   // zero: closed
	trialUntil time.Time   // a half-open trial holds the harness until then
}

// routerReceipt is a kept receipt and its ordering key.
type routerReceipt struct {
	key string
	r   store.RouterReceipt
}

func newRouterSpace(closed *closedFlag, receiptTTL time.Duration) *routerSpace {
	return &routerSpace{closed: closed, receiptTTL: receiptTTL,
		counts: map[string]map[string]int64{}, breakers: map[string]*routerBreaker{},
		overrides: store.RouterOverrides{Paused: map[string]bool{}}}
}

// routerDay is the UTC day of t, the counters' key.
func routerDay(t time.Time) string { return t.UTC().Format(time.DateOnly) }

// TakeRouterCount adds to a day's counter within a limit.
func (p *routerSpace) TakeRouterCount(_ context.Context, name string, by, limit int64, now time.Time) (int64, bool, error) {
	if err := p.closed.check(); err != nil {
		return 0, false, err
	}
	day := routerDay(now)
	p.mu.Lock()
	defer p.mu.Unlock()
	for d := range p.counts { // counters last two days
		if d < routerDay(now.Add(-48*time.Hour)) {
			delete(p.counts, d)
		}
	}
	c := p.counts[day]
	if c == nil {
		c = map[string]int64{}
		p.counts[day] = c
	}
	if limit >= 0 && c[name]+by > limit {
		return c[name], false, nil
	}
	c[name] += by
	return c[name], true, nil
}

// RouterCounts reads a day's counters.
func (p *routerSpace) RouterCounts(_ context.Context, now time.Time) (map[string]int64, error) {
	if err := p.closed.check(); err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	out := map[string]int64{}
	for k, v := range p.counts[routerDay(now)] {
		out[k] = v
	}
	return out, nil
}

// breaker returns a harness's breaker with failures outside the window
// dropped.
func (p *routerSpace) breaker(harness string, b store.RouterBreakerPolicy, now time.Time) *routerBreaker {
	br := p.breakers[harness]
	if br == nil {
		br = &routerBreaker{}
		p.breakers[harness] = br
	}
	cut := 0
	for cut < len(br.failures) && !br.failures[cut].After(now.Add(-b.Window)) {
		cut++
	}
	br.failures = br.failures[cut:]
	return br
}

// state is the breaker's state at now.
func (br *routerBreaker) state(now time.Time) string {
	switch {
	case br.openUntil.IsZero():
		return store.RouterClosed
	case now.Before(br.openUntil):
		return store.RouterOpen
	}
	return store.RouterHalfOpen
}

// AdmitRouterHarness asks the breaker for a turn.
func (p *routerSpace) AdmitRouterHarness(_ context.Context, harness string, b store.RouterBreakerPolicy, now time.Time) (bool, string, error) {
	if err := p.closed.check(); err != nil {
		return false, "", err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	br := p.breaker(harness, b, now)
	switch st := br.state(now); st {
	case store.RouterClosed:
		return true, st, nil
	case store.RouterOpen:
		return false, st, nil
	default:
		if now.Before(br.trialUntil) {
			return false, st, nil // another trial holds it
		}
		br.trialUntil = now.Add(b.TrialTimeout)
		return true, st, nil
	}
}

// ReportRouterHarness records a turn's outcome.
func (p *routerSpace) ReportRouterHarness(_ context.Context, harness string, b store.RouterBreakerPolicy, ok bool, now time.Time) (string, error) {
	if err := p.closed.check(); err != nil {
		return "", err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	br := p.breaker(harness, b, now)
	trial := br.state(now) == store.RouterHalfOpen
	switch {
	case ok && trial:
		*br = routerBreaker{}
	case ok:
	case trial:
		*br = routerBreaker{openUntil: now.Add(b.CoolDown)}
	default:
		br.failures = append(br.failures, now)
		if len(br.failures) >= b.Failures {
			*br = routerBreaker{openUntil: now.Add(b.CoolDown)}
		}
	}
	return br.state(now), nil
}

// RouterBreakerState reads a breaker's state.
func (p *routerSpace) RouterBreakerState(_ context.Context, harness string, b store.RouterBreakerPolicy, now time.Time) (string, error) {
	if err := p.closed.check(); err != nil {
		return "", err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.breaker(harness, b, now).state(now), nil
}

// RouterOverrides reads the owner's overrides.
func (p *routerSpace) RouterOverrides(context.Context) (store.RouterOverrides, error) {
	if err := p.closed.check(); err != nil {
		return store.RouterOverrides{}, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	o := p.overrides
	o.Paused = map[string]bool{}
	for k, v := range p.overrides.Paused {
		o.Paused[k] = v
	}
	if o.Allowed != nil {
		allowed := slices.Clone(*o.Allowed)
		o.Allowed = &allowed
	}
	return o, nil
}

// SetRouterOverrides writes the set fields.
func (p *routerSpace) SetRouterOverrides(_ context.Context, o store.RouterOverrides) error {
	if err := p.closed.check(); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	cur := &p.overrides
	setIf(&cur.Choice, o.Choice)
	setIf(&cur.OwnerTurns, o.OwnerTurns)
	setIf(&cur.VisitorTurns, o.VisitorTurns)
	setIf(&cur.Fallback, o.Fallback)
	setIf(&cur.DailyTurns, o.DailyTurns)
	if o.Allowed != nil {
		allowed := slices.Clone(*o.Allowed)
		cur.Allowed = &allowed
	}
	for k, v := range o.Paused {
		if v {
			cur.Paused[k] = true
		} else {
			delete(cur.Paused, k)
		}
	}
	return nil
}

// setIf copies a set value.
func setIf[T any](dst **T, src *T) {
	if src != nil {
		v := *src
		*dst = &v
	}
}

// RouterReceiptKey orders receipts: the time in Unix microseconds, fixed
// width, then the response ID (the Redis store's member and cursor).
func routerReceiptKey(r store.RouterReceipt) string {
	return fmt.Sprintf("%016d:%s", r.At.UnixMicro(), r.ResponseID)
}

// AddRouterReceipt keeps a receipt.
func (p *routerSpace) AddRouterReceipt(_ context.Context, r store.RouterReceipt) error {
	if err := p.closed.check(); err != nil {
		return err
	}
	r.Rungs = slices.Clone(r.Rungs)
	key := routerReceiptKey(r)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.dropOldReceipts(r.At)
	i := sort.Search(len(p.receipts), func(i int) bool { return p.receipts[i].key >= key })
	if i < len(p.receipts) && p.receipts[i].key == key {
		p.receipts[i].r = r
		return nil
	}
	p.receipts = slices.Insert(p.receipts, i, routerReceipt{key: key, r: r})
	if over := len(p.receipts) - store.RouterReceiptsMax; over > 0 {
		p.receipts = slices.Delete(p.receipts, 0, over)
	}
	return nil
}

// dropOldReceipts drops receipts older than the retention.
func (p *routerSpace) dropOldReceipts(now time.Time) {
	cut := fmt.Sprintf("%016d:", now.Add(-p.receiptTTL).UnixMicro())
	i := sort.Search(len(p.receipts), func(i int) bool { return p.receipts[i].key >= cut })
	p.receipts = slices.Delete(p.receipts, 0, i)
}

// ListRouterReceipts returns a page, newest first.
func (p *routerSpace) ListRouterReceipts(_ context.Context, cursor string, limit int, now time.Time) (store.RouterReceiptPage, error) {
	if err := p.closed.check(); err != nil {
		return store.RouterReceiptPage{}, err
	}
	limit = min(max(limit, 1), 100)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.dropOldReceipts(now)
	end := len(p.receipts)
	if cursor != "" {
		end = sort.Search(len(p.receipts), func(i int) bool { return p.receipts[i].key >= cursor })
	}
	var page store.RouterReceiptPage
	for i := end - 1; i >= 0 && len(page.Receipts) < limit; i-- {
		r := p.receipts[i].r
		r.Rungs = slices.Clone(r.Rungs)
		page.Receipts = append(page.Receipts, r)
		if len(page.Receipts) == limit && i > 0 {
			page.Next = p.receipts[i].key
		}
	}
	return page, nil
}
