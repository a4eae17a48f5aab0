package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/harnest/harnest/bench/internal/loopback"
)

// Config is everything one run needs.
type Config struct {
	URL         string
	Method      string
	Body        string
	Headers     []string // "Key: Value"
	Concurrency int
	Duration    time.Duration
	Warmup      time.Duration
	Grace       time.Duration
	MaxRequests int64 // 0 = bounded by Duration only
	SSE         bool
	SSEFinal    string // if set, an SSE stream must end with this event name
	Label       string
	Prepare     Prepare // optional request before the measured one
	// Expect, if set, must occur in every 2xx body that is not SSE (a
	// JSON-RPC error comes with 200).
	Expect string
}

// Validate checks a Config before anything is dialled.
func (c Config) Validate() error {
	if err := CheckLoopback(c.URL); err != nil {
		return err
	}
	if c.Concurrency < 1 {
		return errors.New("-c must be at least 1")
	}
	if c.Duration <= 0 {
		return errors.New("-d must be positive")
	}
	if c.Warmup < 0 || c.Grace < 0 || c.MaxRequests < 0 {
		return errors.New("-warmup, -grace and -n must not be negative")
	}
	if err := c.Prepare.validate(); err != nil {
		return err
	}
	_, err := parseHeaders(c.Headers)
	return err
}

// CheckLoopback refuses any URL that is not http(s) on a loopback host. It
// only parses: "localhost" is the one name accepted, every other name is
// refused without being resolved.
func CheckLoopback(rawURL string) error {
	if !strings.HasPrefix(rawURL, "http://") && !strings.HasPrefix(rawURL, "https://") {
		return fmt.Errorf("url %q: scheme must be http or https", rawURL)
	}
	return loopback.CheckURL(rawURL)
}

// outcome of one request.
type outcome struct {
	status  int
	err     error
	latency time.Duration
	ttfe    time.Duration // SSE: time to the first complete event
	events  int64
}

// workerStats is owned by one worker; merged after the run.
type workerStats struct {
	latencies  []time.Duration
	ttfes      []time.Duration
	requests   int64
	non2xx     int64
	errors     int64
	events     int64
	firstError string
}

func (w *workerStats) fail(msg string) {
	if w.firstError == "" {
		w.firstError = msg
	}
}

type runner struct {
	cfg     Config
	client  *http.Client
	header  http.Header
	started atomic.Int64 // measured requests started, for -n
}

// target is the URL and body of the measured request, with the prepared
// value in place of the placeholder.
type target struct {
	url  string
	body []byte
}

func (r *runner) target(prepared string) target {
	if !r.cfg.Prepare.enabled() {
		return target{url: r.cfg.URL, body: []byte(r.cfg.Body)}
	}
	return target{
		url:  strings.ReplaceAll(r.cfg.URL, Placeholder, prepared),
		body: []byte(strings.ReplaceAll(r.cfg.Body, Placeholder, prepared)),
	}
}

func (r *runner) doOne(ctx context.Context, br *bufio.Reader, t target) outcome {
	req, err := http.NewRequestWithContext(ctx, r.cfg.Method, t.url, bytes.NewReader(t.body))
	if err != nil {
		return outcome{err: err}
	}
	if len(t.body) == 0 {
		req.Body = http.NoBody
		req.ContentLength = 0
	}
	for k, v := range r.header {
		if strings.EqualFold(k, "Host") {
			req.Host = v[0]
			continue
		}
		req.Header[k] = v
	}

	start := time.Now()
	resp, err := r.client.Do(req)
	if err != nil {
		return outcome{err: err, latency: time.Since(start)}
	}
	defer resp.Body.Close()

	out := outcome{status: resp.StatusCode}
	ok := resp.StatusCode >= 200 && resp.StatusCode <= 299
	if ok && !r.cfg.SSE && r.cfg.Expect != "" {
		body, err := io.ReadAll(resp.Body)
		out.latency = time.Since(start)
		out.err = err
		if err == nil && !bytes.Contains(body, []byte(r.cfg.Expect)) {
			out.err = fmt.Errorf("body does not contain %q: %.200s", r.cfg.Expect, body)
		}
		return out
	}
	if !ok || !r.cfg.SSE {
		_, err = io.Copy(io.Discard, resp.Body)
		out.err = err
		out.latency = time.Since(start)
		return out
	}

	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		_, _ = io.Copy(io.Discard, resp.Body)
		out.err = fmt.Errorf("sse: Content-Type %q, want text/event-stream", ct)
		out.latency = time.Since(start)
		return out
	}
	br.Reset(resp.Body)
	events, last, err := readSSE(br, func() {
		if out.ttfe == 0 {
			out.ttfe = time.Since(start)
		}
	})
	out.latency = time.Since(start)
	out.events = events
	out.err = err
	if err == nil && r.cfg.SSEFinal != "" && last != r.cfg.SSEFinal {
		out.err = fmt.Errorf("sse: stream ended after event %q, want %q", last, r.cfg.SSEFinal)
	}
	if err == nil && events == 0 {
		out.err = errors.New("sse: stream had no events")
	}
	return out
}

func (r *runner) work(ctx context.Context, measureStart, end time.Time, st *workerStats) {
	var br *bufio.Reader
	if r.cfg.SSE {
		br = bufio.NewReaderSize(nil, 64<<10)
	}
	prepareEach := r.cfg.Prepare.enabled() && r.cfg.Prepare.Every != "worker"
	t := r.target("")
	if r.cfg.Prepare.enabled() && !prepareEach {
		value, err := r.cfg.Prepare.run(ctx, r.client, r.header)
		if err != nil {
			st.requests++
			st.errors++
			st.fail(err.Error())
			return
		}
		t = r.target(value)
	}
	for {
		now := time.Now()
		if ctx.Err() != nil || !now.Before(end) {
			return
		}
		measured := !now.Before(measureStart)
		if measured && r.cfg.MaxRequests > 0 && r.started.Add(1) > r.cfg.MaxRequests {
			return
		}
		if prepareEach {
			value, err := r.cfg.Prepare.run(ctx, r.client, r.header)
			if err != nil {
				if measured {
					st.requests++
					st.errors++
					st.fail(err.Error())
				}
				continue
			}
			t = r.target(value)
		}
		out := r.doOne(ctx, br, t)
		if !measured {
			continue
		}
		st.requests++
		switch {
		case out.err != nil:
			st.errors++
			st.fail(out.err.Error())
		case out.status < 200 || out.status > 299:
			st.non2xx++
			st.fail(fmt.Sprintf("HTTP %d", out.status))
		default:
			st.latencies = append(st.latencies, out.latency)
			if r.cfg.SSE {
				st.ttfes = append(st.ttfes, out.ttfe)
				st.events += out.events
			}
		}
	}
}

// Run performs one bounded load run.
func Run(ctx context.Context, cfg Config) (Result, error) {
	if cfg.Method == "" {
		cfg.Method = http.MethodPost
	}
	if err := cfg.Validate(); err != nil {
		return Result{}, err
	}
	header, _ := parseHeaders(cfg.Headers)
	client := loopback.Client(cfg.Concurrency)
	defer client.CloseIdleConnections()

	r := &runner{cfg: cfg, client: client, header: header}

	// Preallocate per-worker sample slices; they still grow if needed.
	perWorker := 1 << 14
	if cfg.MaxRequests > 0 {
		perWorker = min(perWorker, int(cfg.MaxRequests)/cfg.Concurrency+1)
	}
	stats := make([]workerStats, cfg.Concurrency)
	for i := range stats {
		stats[i].latencies = make([]time.Duration, 0, perWorker)
		if cfg.SSE {
			stats[i].ttfes = make([]time.Duration, 0, perWorker)
		}
	}

	begin := time.Now()
	measureStart := begin.Add(cfg.Warmup)
	end := measureStart.Add(cfg.Duration)
	grace := cfg.Grace
	if grace == 0 {
		grace = 2 * time.Second
	}
	ctx, cancel := context.WithDeadline(ctx, end.Add(grace))
	defer cancel()

	var wg sync.WaitGroup
	for i := range stats {
		wg.Go(func() { r.work(ctx, measureStart, end, &stats[i]) })
	}
	wg.Wait()
	elapsed := time.Since(measureStart)
	if elapsed <= 0 {
		elapsed = time.Nanosecond
	}

	return merge(cfg, stats, elapsed), nil
}
