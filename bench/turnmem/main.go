// Command turnmem measures what stored turns cost in memory and whether
// throughput holds as they pile up, against a running harnest (echo agent,
// examples/hello): it makes -turns JSON turns (POST /responses, each in a
// new session, -c at a time) and, when the count of finished turns reaches
// each of -at, reads the resident memory (VmRSS) of harnest (-pid) and of
// the store's own process (-store-pid: redis-server, when there is one) and
// the time since the start.
//
//	turnmem -url http://127.0.0.1:PORT -pid PID [-store-pid PID] -at 10000,20000,100000
//
// Before it starts counting, it makes -warmup turns (connections, buffers
// and the store's first allocations), which are not counted. It prints, at
// each count, the RSS and the bytes of RSS per stored turn (the growth
// since the start divided by the turns), and the throughput of the first
// turns up to each count: the first 10k against the first 100k should be
// within ±10 %.
//
// It only dials loopback addresses and gives up after -timeout.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/harnest/harnest/bench/internal/httpjson"
	"github.com/harnest/harnest/bench/internal/loopback"
	"github.com/harnest/harnest/bench/internal/numlist"
	"github.com/harnest/harnest/bench/internal/proc"
)

// Options are the command's flags.
type Options struct {
	URL      string
	PID      int   // harnest's process
	StorePID int   // the store's process (0: the store is inside harnest)
	At       []int // counts of finished turns at which to measure; the last is the total
	Warmup   int   // turns made first, not counted
	Workers  int
	Timeout  time.Duration
}

func main() {
	var o Options
	at := "10000,20000,100000"
	flag.StringVar(&o.URL, "url", "http://127.0.0.1:1907", "harnest's base URL (loopback only)")
	flag.IntVar(&o.PID, "pid", 0, "harnest's process ID")
	flag.IntVar(&o.StorePID, "store-pid", 0, "the store's process ID (redis-server), if it has its own")
	flag.StringVar(&at, "at", at, "increasing counts of finished turns at which to measure; the last is how many turns are made")
	flag.IntVar(&o.Workers, "c", 32, "turns in flight at once")
	flag.IntVar(&o.Warmup, "warmup", 1000, "turns made first, not counted")
	flag.DurationVar(&o.Timeout, "timeout", 10*time.Minute, "give up after this long")
	flag.Parse()
	var err error
	if o.At, err = parseCounts(at); err != nil {
		fmt.Fprintln(os.Stderr, "turnmem: -at:", err)
		os.Exit(2)
	}
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "turnmem:", err)
		os.Exit(1)
	}
}

// parseCounts reads "10000,20000" into increasing positive counts.
func parseCounts(s string) ([]int, error) {
	return numlist.Increasing(strings.Split(s, ","), "counts")
}

// mark is what was measured when a count of turns had finished.
type mark struct {
	turns    int
	elapsed  time.Duration
	rss      int64 // harnest, KiB
	storeRSS int64 // the store's process, KiB (0 without one)
}

func run(o Options) error {
	if err := loopback.CheckURL(o.URL); err != nil {
		return err
	}
	if o.PID <= 0 {
		return errors.New("pass harnest's process ID with -pid")
	}
	if o.Workers < 1 || o.Warmup < 0 {
		return errors.New("-c must be at least 1 and -warmup not negative")
	}
	ctx, cancel := context.WithTimeout(context.Background(), o.Timeout)
	defer cancel()
	client := loopback.Client(o.Workers)
	defer client.CloseIdleConnections()
	url := strings.TrimSuffix(o.URL, "/") + "/responses"

	measure := func(turns int, elapsed time.Duration) (mark, error) {
		m := mark{turns: turns, elapsed: elapsed}
		var err error
		if m.rss, err = proc.RSSKiB(o.PID); err != nil {
			return m, err
		}
		if o.StorePID > 0 {
			if m.storeRSS, err = proc.RSSKiB(o.StorePID); err != nil {
				return m, err
			}
		}
		return m, nil
	}
	if err := makeTurns(ctx, client, url, o.Warmup, o.Workers, nil); err != nil {
		return fmt.Errorf("warming up: %w", err)
	}
	start, err := measure(0, 0)
	if err != nil {
		return err
	}
	begin := time.Now()
	var mu sync.Mutex
	var marks []mark
	var measureErr error
	err = makeTurns(ctx, client, url, o.At[len(o.At)-1], o.Workers, func(n int) {
		if !slices.Contains(o.At, n) {
			return
		}
		m, err := measure(n, time.Since(begin))
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			measureErr = err
			return
		}
		marks = append(marks, m)
	})
	if err != nil {
		return err
	}
	if measureErr != nil {
		return measureErr
	}
	slices.SortFunc(marks, func(a, b mark) int { return a.turns - b.turns })
	printMarks(start, marks, o.StorePID > 0)
	return nil
}

// makeTurns makes total JSON turns, workers at a time, and calls
// finished(n) (when not nil) as the n-th turn finishes. More than 1 % of
// failed turns stops it; any failure is returned.
func makeTurns(ctx context.Context, client *http.Client, url string, total, workers int, finished func(n int)) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var started, done, failed atomic.Int64
	var mu sync.Mutex
	var firstErr error
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for started.Add(1) <= int64(total) && ctx.Err() == nil {
				var out struct{ Status string }
				err := httpjson.Post(ctx, client, url, `{"input":"hello"}`, &out)
				if err == nil && out.Status != "completed" {
					err = fmt.Errorf("a turn ended %q, want completed", out.Status)
				}
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					if failed.Add(1) > int64(total/100)+10 {
						cancel()
					}
				}
				n := int(done.Add(1))
				if finished != nil {
					finished(n)
				}
			}
		})
	}
	wg.Wait()
	if f := failed.Load(); f > 0 {
		return fmt.Errorf("%d of %d turns failed; the first: %v", f, done.Load(), firstErr)
	}
	if n := int(done.Load()); n < total {
		return fmt.Errorf("stopped after %d of %d turns: %v", n, total, ctx.Err())
	}
	return nil
}

// printMarks prints the memory and throughput at each count.
func printMarks(start mark, marks []mark, withStore bool) {
	for _, m := range marks {
		perTurn := func(now, then int64) float64 { return float64(now-then) * 1024 / float64(m.turns) }
		line := fmt.Sprintf("after %7d turns: %6.0f turns/s so far; harnest RSS %7.1f MiB, %6.0f B per stored turn",
			m.turns, float64(m.turns)/m.elapsed.Seconds(), float64(m.rss)/1024, perTurn(m.rss, start.rss))
		if withStore {
			line += fmt.Sprintf("; store RSS %7.1f MiB, %6.0f B per stored turn; together %6.0f B",
				float64(m.storeRSS)/1024, perTurn(m.storeRSS, start.storeRSS), perTurn(m.rss+m.storeRSS, start.rss+start.storeRSS))
		}
		fmt.Println(line)
	}
	if len(marks) >= 2 {
		first, last := marks[0], marks[len(marks)-1]
		ratio := (float64(last.turns) / last.elapsed.Seconds()) / (float64(first.turns) / first.elapsed.Seconds())
		verdict := "within ±10 %"
		if ratio < 0.9 || ratio > 1.1 {
			verdict = "NOT within ±10 %"
		}
		fmt.Printf("throughput of the first %d turns / the first %d: %.2f (%s)\n", last.turns, first.turns, ratio, verdict)
	}
}
