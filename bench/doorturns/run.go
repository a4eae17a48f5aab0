package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/harnest/harnest/bench/internal/loopback"
)

// options configure a run.
type options struct {
	Base, Model, Token, Input string
	Concurrency, Rounds       int
	Duration, Warmup          time.Duration
}

// result is what one door measured over every round.
type result struct {
	Door        door
	TurnsPerSec []float64 // one per round
	TTFT        []time.Duration
	Failures    int
	FirstError  string
}

// run drives the doors alternately, round after round.
func run(o options) ([]*result, error) {
	client := loopback.Client(o.Concurrency)
	ds := doors(o)
	results := make([]*result, len(ds))
	for i, d := range ds {
		results[i] = &result{Door: d}
		// The warmup also checks the door answers at all.
		if _, err := d.turn(context.Background(), client, o.Base, o.Token); err != nil {
			return nil, fmt.Errorf("%s does not answer: %w", d.Name, err)
		}
		measure(o, d, o.Warmup, nil)
	}
	for range o.Rounds {
		for i, d := range ds {
			measure(o, d, o.Duration, results[i])
		}
	}
	return results, nil
}

// measure runs the closed loop on one door for dur (its own keep-alive
// connections); into (nil for a warmup)
// gets its turns/s and every turn's time to first token.
func measure(o options, d door, dur time.Duration, into *result) {
	hc := loopback.Client(o.Concurrency)
	ctx, cancel := context.WithTimeout(context.Background(), dur+10*time.Second)
	defer cancel()
	end := time.Now().Add(dur)
	var mu sync.Mutex
	var wg sync.WaitGroup
	turns := 0
	start := time.Now()
	for range o.Concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(end) {
				ttft, err := d.turn(ctx, hc, o.Base, o.Token)
				mu.Lock()
				if into != nil {
					if err != nil {
						into.Failures++
						if into.FirstError == "" {
							into.FirstError = err.Error()
						}
					} else {
						into.TTFT = append(into.TTFT, ttft)
					}
				}
				if err == nil {
					turns++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	hc.CloseIdleConnections()
	if into != nil {
		into.TurnsPerSec = append(into.TurnsPerSec, float64(turns)/time.Since(start).Seconds())
	}
}

// percentile is the p-th percentile (0..100) of sorted durations.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(p / 100 * float64(len(sorted)-1))
	return sorted[i]
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// report prints one line per door and the ratio of each other door to the
// first.
func report(w io.Writer, o options, results []*result) {
	fmt.Fprintf(w, "doorturns  %s  c=%d  %d rounds x %s per door  input %q\n", o.Base, o.Concurrency, o.Rounds, o.Duration, o.Input)
	for _, r := range results {
		slices.Sort(r.TTFT)
		fmt.Fprintf(w, "%-24s turns/s %8.1f  ttft p50 %7.3fms  p99 %7.3fms  turns %d  failures %d\n", r.Door.Name, mean(r.TurnsPerSec),
			ms(percentile(r.TTFT, 50)), ms(percentile(r.TTFT, 99)), len(r.TTFT), r.Failures)
		if r.FirstError != "" {
			fmt.Fprintf(w, "  first failure: %s\n", r.FirstError)
		}
	}
	if len(results) < 2 || mean(results[0].TurnsPerSec) <= 0 {
		return
	}
	for _, r := range results[1:] {
		fmt.Fprintf(w, "ratio %s / %s turns/s: %.2f\n", r.Door.Name, results[0].Door.Name, mean(r.TurnsPerSec)/mean(results[0].TurnsPerSec))
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
