// Command growth measures whether harnest's costs stay flat as its data
// grows, against a running server (echo agent, examples/hello):
//
//   - a JSON turn in one session as the session grows from 10 to 10,000
//     messages (-turn-at);
//   - a transcript page (GET /sessions/{id}/messages?limit=100), the first
//     and the last, as that transcript grows to 100,000 messages (-page-at);
//   - a session list page (GET /sessions?limit=100), the first and the
//     last, as the user's sessions grow to 100,000 (-list-at).
//
// Each figure is the median of -reads timed calls (for turns, of -window
// turns) at that size. Calls are made one at a time, so the figures are
// latencies on an otherwise idle server, and they move with the host (a
// 0.2 ms turn by a fifth from one minute to the next on a shared machine).
// So every timed call is followed by a timed probe of a size that does not
// grow: a turn in a small session (kept at 10 to 30 messages) after a turn,
// the one page of a session of 10 messages after a page. A figure's ratio
// is its median over its probes' median, against the same at the smallest
// size: flat means within ±20 % (0.80..1.20). The transcript grows by turns
// (two messages each) and the sessions by POST /sessions, -c at a time.
//
//	growth -url http://127.0.0.1:PORT
//
// It only dials loopback addresses and gives up after -timeout.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/harnest/harnest/bench/internal/loopback"
	"github.com/harnest/harnest/bench/internal/numlist"
)

// Options are the command's flags.
type Options struct {
	URL     string
	TurnAt  []int // transcript sizes (messages) at which a turn is timed
	PageAt  []int // transcript sizes (messages) at which pages are timed
	ListAt  []int // session counts at which list pages are timed
	Window  int   // turns timed at each size
	Reads   int   // timed reads of each page at each size
	Workers int   // sessions created at once
	Timeout time.Duration
}

func main() {
	var o Options
	turnAt, pageAt, listAt := "10,100,1000,10000", "100,1000,10000,100000", "100,1000,10000,100000"
	flag.StringVar(&o.URL, "url", "http://127.0.0.1:1907", "harnest's base URL (loopback only)")
	flag.StringVar(&turnAt, "turn-at", turnAt, "transcript sizes (messages) at which turns are timed; empty: skip")
	flag.StringVar(&pageAt, "page-at", pageAt, "transcript sizes (messages) at which transcript pages are timed; empty: skip")
	flag.StringVar(&listAt, "list-at", listAt, "session counts at which session list pages are timed; empty: skip")
	flag.IntVar(&o.Window, "window", 100, "turns timed at each size")
	flag.IntVar(&o.Reads, "reads", 200, "timed reads of each page at each size")
	flag.IntVar(&o.Workers, "c", 8, "sessions created at once")
	flag.DurationVar(&o.Timeout, "timeout", 10*time.Minute, "give up after this long")
	flag.Parse()
	var err error
	for _, l := range []struct {
		flag, value string
		into        *[]int
	}{{"-turn-at", turnAt, &o.TurnAt}, {"-page-at", pageAt, &o.PageAt}, {"-list-at", listAt, &o.ListAt}} {
		if *l.into, err = parseSizes(l.value); err != nil {
			fmt.Fprintf(os.Stderr, "growth: %s: %v\n", l.flag, err)
			os.Exit(2)
		}
	}
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "growth:", err)
		os.Exit(1)
	}
}

// parseSizes reads "10,100,1000" into increasing positive sizes; empty
// fields are skipped.
func parseSizes(s string) ([]int, error) {
	var fields []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			fields = append(fields, f)
		}
	}
	return numlist.Increasing(fields, "sizes")
}

func run(o Options) error {
	if err := loopback.CheckURL(o.URL); err != nil {
		return err
	}
	if o.Window < 1 || o.Reads < 1 || o.Workers < 1 {
		return errors.New("-window, -reads and -c must be at least 1")
	}
	ctx, cancel := context.WithTimeout(context.Background(), o.Timeout)
	defer cancel()
	h := &harnest{base: strings.TrimSuffix(o.URL, "/"), client: loopback.Client(o.Workers)}
	defer h.client.CloseIdleConnections()

	if len(o.TurnAt) > 0 || len(o.PageAt) > 0 {
		rows, err := growTranscript(ctx, h, o)
		if err != nil {
			return err
		}
		printRows(rows)
	}
	if len(o.ListAt) > 0 {
		rows, err := growSessions(ctx, h, o)
		if err != nil {
			return err
		}
		printRows(rows)
	}
	return nil
}

// row is one measured figure at one size, and its probes' (see the
// package doc).
type row struct {
	what  string
	size  int
	unit  string // what size counts
	took  time.Duration
	probe time.Duration
}

// growTranscript grows one session by JSON turns, timing each and a probe
// turn after it, and times its pages at the requested sizes. The turn
// figure at a size is the median of the -window turns that start there.
func growTranscript(ctx context.Context, h *harnest, o Options) ([]row, error) {
	session, err := h.createSession(ctx)
	if err != nil {
		return nil, err
	}
	small, err := newSmallSession(ctx, h)
	if err != nil {
		return nil, err
	}
	reads, err := newPageProbe(ctx, h)
	if err != nil {
		return nil, err
	}
	end := 0
	if len(o.TurnAt) > 0 {
		end = o.TurnAt[len(o.TurnAt)-1] + 2*o.Window
	}
	if len(o.PageAt) > 0 {
		end = max(end, o.PageAt[len(o.PageAt)-1])
	}
	var rows []row
	pageAt := o.PageAt
	turns := make([]time.Duration, 0, end/2+1)  // turns[i] started at 2*i messages
	probes := make([]time.Duration, 0, end/2+1) // the probe turn after turns[i]
	for messages := 0; ; messages += 2 {
		if len(pageAt) > 0 && messages >= pageAt[0] {
			first, last, err := timePages(ctx, o.Reads,
				func(cursor string) (string, int, error) { return h.messagesPage(ctx, session, cursor) },
				func() error { return reads.read(ctx) })
			if err != nil {
				return nil, err
			}
			rows = append(rows, first.row("transcript first page", messages, "messages"), last.row("transcript last page", messages, "messages"))
			pageAt = pageAt[1:]
		}
		if messages >= end {
			break
		}
		took, err := h.turn(ctx, session)
		if err != nil {
			return nil, fmt.Errorf("a turn at %d messages: %w", messages, err)
		}
		probe, err := small.turn(ctx)
		if err != nil {
			return nil, fmt.Errorf("a probe turn: %w", err)
		}
		turns, probes = append(turns, took), append(probes, probe)
	}
	for _, at := range o.TurnAt {
		i, j := at/2, min(at/2+o.Window, len(turns))
		rows = append(rows, row{"JSON turn in the session", at, "messages", median(turns[i:j]), median(probes[i:j])})
	}
	return rows, nil
}

// smallSession is the probe turns' session: a turn in it costs the same
// all along, so the server's and the host's speed of the moment can be
// told from a growing figure's. It is replaced (deleted and made again)
// when it reaches smallSessionTo messages, so the user's session count
// does not grow with it.
type smallSession struct {
	h  *harnest
	id string
	n  int // messages
}

// Bounds of a small session's transcript, in messages: it starts at the
// first and is replaced when it reaches the second.
const (
	smallSessionFrom = 10
	smallSessionTo   = 30
)

func newSmallSession(ctx context.Context, h *harnest) (*smallSession, error) {
	s := &smallSession{h: h}
	return s, s.fill(ctx)
}

// fill makes the session and its first smallSessionFrom messages.
func (s *smallSession) fill(ctx context.Context) error {
	id, err := s.h.createSession(ctx)
	if err != nil {
		return err
	}
	s.id, s.n = id, 0
	for s.n < smallSessionFrom {
		if _, err := s.h.turn(ctx, s.id); err != nil {
			return err
		}
		s.n += 2
	}
	return nil
}

// turn times one turn in the small session (replacing it first, untimed,
// when it is full).
func (s *smallSession) turn(ctx context.Context) (time.Duration, error) {
	if s.n >= smallSessionTo {
		if err := s.h.deleteSession(ctx, s.id); err != nil {
			return 0, err
		}
		if err := s.fill(ctx); err != nil {
			return 0, err
		}
	}
	took, err := s.h.turn(ctx, s.id)
	s.n += 2
	return took, err
}

// pageProbe is the probe reads' session: smallSessionFrom messages that
// never change, read as one page.
type pageProbe struct {
	h  *harnest
	id string
}

func newPageProbe(ctx context.Context, h *harnest) (pageProbe, error) {
	s, err := newSmallSession(ctx, h)
	if err != nil {
		return pageProbe{}, err
	}
	return pageProbe{h: h, id: s.id}, nil
}

func (p pageProbe) read(ctx context.Context) error {
	_, _, err := p.h.messagesPage(ctx, p.id, "")
	return err
}

// growSessions creates sessions and times list pages at the requested
// counts.
func growSessions(ctx context.Context, h *harnest, o Options) ([]row, error) {
	have, err := h.countSessions(ctx)
	if err != nil {
		return nil, err
	}
	reads, err := newPageProbe(ctx, h) // one session more
	if err != nil {
		return nil, err
	}
	have++
	var rows []row
	for _, n := range o.ListAt {
		if n > have {
			if err := h.createSessions(ctx, n-have, o.Workers); err != nil {
				return nil, fmt.Errorf("creating sessions up to %d: %w", n, err)
			}
			have = n
		}
		first, last, err := timePages(ctx, o.Reads,
			func(cursor string) (string, int, error) { return h.sessionsPage(ctx, cursor) },
			func() error { return reads.read(ctx) })
		if err != nil {
			return nil, err
		}
		rows = append(rows, first.row("session list first page", have, "sessions"), last.row("session list last page", have, "sessions"))
	}
	return rows, nil
}

// timed is the median of a page's timed reads and of the probes timed
// after them.
type timed struct{ took, probe time.Duration }

func (t timed) row(what string, size int, unit string) row {
	return row{what: what, size: size, unit: unit, took: t.took, probe: t.probe}
}

// timePages times the first page reads times, walks every page to the
// last one that has items, and times that one reads times; each timed
// read is followed by a timed probe. page reads the page after cursor (""
// for the first) and returns the next cursor ("" after the last) and how
// many items the page had.
func timePages(ctx context.Context, reads int, page func(cursor string) (next string, items int, err error), probe func() error) (first, last timed, err error) {
	timeOne := func(cursor string) (timed, error) {
		samples := make([]time.Duration, 0, reads)
		probes := make([]time.Duration, 0, reads)
		for range reads {
			start := time.Now()
			if _, _, err := page(cursor); err != nil {
				return timed{}, err
			}
			samples = append(samples, time.Since(start))
			start = time.Now()
			if err := probe(); err != nil {
				return timed{}, fmt.Errorf("a probe: %w", err)
			}
			probes = append(probes, time.Since(start))
		}
		return timed{median(samples), median(probes)}, nil
	}
	if first, err = timeOne(""); err != nil {
		return timed{}, timed{}, err
	}
	cursor, lastFull := "", ""
	for {
		next, items, err := page(cursor)
		if err != nil {
			return timed{}, timed{}, err
		}
		if items > 0 {
			lastFull = cursor
		}
		if next == "" {
			break
		}
		if ctx.Err() != nil {
			return timed{}, timed{}, ctx.Err()
		}
		cursor = next
	}
	if last, err = timeOne(lastFull); err != nil {
		return timed{}, timed{}, err
	}
	return first, last, nil
}

func median(samples []time.Duration) time.Duration {
	if len(samples) == 0 {
		return 0
	}
	s := slices.Clone(samples)
	slices.Sort(s)
	return s[len(s)/2]
}

// printRows prints each figure, its probes', and its ratio to the same
// figure at the smallest size, both over their probes; and whether it
// stayed flat (within ±20 %).
func printRows(rows []row) {
	firstOf := map[string]float64{}
	worst := map[string]float64{}
	var order []string
	for _, r := range rows {
		if _, ok := firstOf[r.what]; !ok {
			firstOf[r.what] = r.relative()
			order = append(order, r.what)
		}
	}
	slices.SortStableFunc(rows, func(a, b row) int { return slices.Index(order, a.what) - slices.Index(order, b.what) })
	for _, r := range rows {
		ratio := r.relative() / firstOf[r.what]
		if d := abs(ratio - 1); d > worst[r.what] {
			worst[r.what] = d
		}
		fmt.Printf("%-26s at %7d %-8s %9.3f ms  probe %6.3f ms  x%.2f\n", r.what, r.size, r.unit, millis(r.took), millis(r.probe), ratio)
	}
	for _, what := range order {
		verdict := "flat (within ±20 %)"
		if worst[what] > 0.20 {
			verdict = fmt.Sprintf("NOT flat: up to %.0f %% off the smallest size", 100*worst[what])
		}
		fmt.Printf("%-26s %s\n", what+":", verdict)
	}
}

// relative is the figure over its probes' (the figure itself when it had
// no probes).
func (r row) relative() float64 {
	if r.probe <= 0 {
		return float64(max(r.took, 1))
	}
	return float64(max(r.took, 1)) / float64(r.probe)
}

func millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
