package budget_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/harnest/harnest/internal/budget"
)

// dayCounter is a counter per UTC day with the store's "add within a
// limit" rule.
type dayCounter struct {
	mu   sync.Mutex
	days map[string]int64
}

func (c *dayCounter) add(_ context.Context, by, limit int64, now time.Time) (int64, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.days == nil {
		c.days = map[string]int64{}
	}
	day := now.UTC().Format(time.DateOnly)
	if limit >= 0 && c.days[day]+by > limit {
		return c.days[day], false, nil
	}
	c.days[day] += by
	return c.days[day], true, nil
}

func (c *dayCounter) get(now time.Time) int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.days[now.UTC().Format(time.DateOnly)]
}

var noon = time.Date(2026, 3, 4, 12, 0, 0, 0, time.UTC)

func TestReserveSettle(t *testing.T) {
	ctx := context.Background()
	var c dayCounter
	h, ok, err := budget.Reserve(ctx, c.add, 100, 300, noon)
	if err != nil || !ok || c.get(noon) != 100 {
		t.Fatalf("reserve: %v %v, counter %d", ok, err, c.get(noon))
	}
	if err := h.Settle(ctx, 40); err != nil || c.get(noon) != 40 {
		t.Fatalf("settle below the hold: %v, counter %d; want 40", err, c.get(noon))
	}
	if err := h.Settle(ctx, 40); !errors.Is(err, budget.ErrSettled) || c.get(noon) != 40 {
		t.Fatalf("second settle: %v, counter %d", err, c.get(noon))
	}
	// Spent more than held: counted whatever the limit.
	h, _, _ = budget.Reserve(ctx, c.add, 100, 300, noon)
	if err := h.Settle(ctx, 290); err != nil || c.get(noon) != 330 {
		t.Fatalf("settle above the hold: %v, counter %d; want 330", err, c.get(noon))
	}
	if h, ok, err := budget.Reserve(ctx, c.add, 1, 300, noon); h != nil || ok || err != nil || c.get(noon) != 330 {
		t.Fatalf("reserve past the limit: %v %v %v, counter %d", h, ok, err, c.get(noon))
	}
	// A release settles on the hold's day, not the day it is released.
	var d dayCounter
	late := noon.Add(11*time.Hour + 59*time.Minute)
	h, _, _ = budget.Reserve(ctx, d.add, 100, 300, late)
	if err := h.Release(ctx); err != nil || d.get(late) != 0 || d.get(late.Add(time.Hour)) != 0 {
		t.Fatalf("release: %v, counters %d %d", err, d.get(late), d.get(late.Add(time.Hour)))
	}
	var nilHold *budget.Hold
	if err := nilHold.Settle(ctx, 5); err != nil {
		t.Fatalf("nil hold: %v", err)
	}
}

// TestReserveConcurrently: holds taken at once never pass the limit,
// where checking first and adding after would.
func TestReserveConcurrently(t *testing.T) {
	ctx := context.Background()
	var c dayCounter
	var wg sync.WaitGroup
	var mu sync.Mutex
	paid := 0
	for range 16 {
		wg.Go(func() {
			h, ok, err := budget.Reserve(ctx, c.add, 100, 300, noon)
			if err != nil || !ok {
				return
			}
			time.Sleep(time.Millisecond)
			mu.Lock()
			paid++
			mu.Unlock()
			if err := h.Settle(ctx, 100); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if paid != 3 || c.get(noon) != 300 {
		t.Fatalf("%d paid, counter %d; want 3 and 300", paid, c.get(noon))
	}
}
