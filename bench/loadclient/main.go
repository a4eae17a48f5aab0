// Command loadclient is a small closed-loop HTTP load generator for the
// harnest benchmark. It only targets loopback addresses.
//
// Each of -c workers sends one request at a time, reads the whole response
// and starts the next one. Requests during -warmup are not counted; after
// it, requests are counted for -d (or until -n requests were started). The
// run is bounded: no request starts after the end of -d, and requests still
// in flight are cancelled -grace after it (and counted as errors).
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
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
}

// Latency holds percentiles in milliseconds.
type Latency struct {
	P50 float64 `json:"p50"`
	P90 float64 `json:"p90"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}

// SSEStats is filled for -sse runs.
type SSEStats struct {
	Events       int64   `json:"events"`
	EventsPerSec float64 `json:"eventsPerSec"`
	TTFEP50      float64 `json:"ttfeP50Ms"`
	TTFEP99      float64 `json:"ttfeP99Ms"`
}

// Result is the outcome of one run. Requests counts every measured request
// that finished (success or failure); ReqPerSec and the latencies only use
// successful requests.
type Result struct {
	Label       string    `json:"label,omitempty"`
	URL         string    `json:"url"`
	Method      string    `json:"method"`
	Concurrency int       `json:"concurrency"`
	ElapsedSec  float64   `json:"elapsedSec"`
	Requests    int64     `json:"requests"`
	OK          int64     `json:"ok"`
	Failures    int64     `json:"failures"`
	Non2xx      int64     `json:"non2xx"`
	Errors      int64     `json:"errors"`
	FirstError  string    `json:"firstError,omitempty"`
	ReqPerSec   float64   `json:"reqPerSec"`
	LatencyMs   Latency   `json:"latencyMs"`
	SSE         *SSEStats `json:"sse,omitempty"`
}

// FailureRate is Failures/Requests (0 when nothing ran).
func (r Result) FailureRate() float64 {
	if r.Requests == 0 {
		return 0
	}
	return float64(r.Failures) / float64(r.Requests)
}

// headerList is a repeatable -header flag.
type headerList []string

func (h *headerList) String() string     { return strings.Join(*h, ", ") }
func (h *headerList) Set(v string) error { *h = append(*h, v); return nil }

// CheckLoopback refuses any URL whose host is not a loopback address. It only
// parses: "localhost" is the one name accepted, every other name is refused
// without being resolved.
func CheckLoopback(rawURL string) error {
	u, err := url.Parse(rawURL)
	if err != nil {
		return fmt.Errorf("bad url %q: %v", rawURL, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("url %q: scheme must be http or https", rawURL)
	}
	host := u.Hostname()
	if strings.EqualFold(host, "localhost") {
		return nil
	}
	addr, err := netip.ParseAddr(host)
	if err == nil && addr.Unmap().IsLoopback() {
		return nil
	}
	return fmt.Errorf("url %q: host %q is not loopback; benches only target loopback (127.0.0.0/8, ::1, localhost)", rawURL, host)
}

// loopbackOnly is a dialer Control hook: even if "localhost" resolves to
// something odd, the connection is refused unless the address is loopback.
func loopbackOnly(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil || !ap.Addr().Unmap().IsLoopback() {
		return fmt.Errorf("refusing to dial %s: benches only target loopback", address)
	}
	return nil
}

func parseHeaders(list []string) (http.Header, error) {
	h := http.Header{}
	for _, kv := range list {
		k, v, ok := strings.Cut(kv, ":")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, fmt.Errorf("bad header %q, want \"Key: Value\"", kv)
		}
		h.Add(k, strings.TrimSpace(v))
	}
	return h, nil
}

func newClient(concurrency int) *http.Client {
	dialer := &net.Dialer{
		Timeout:   5 * time.Second,
		KeepAlive: 30 * time.Second,
		Control:   loopbackOnly,
	}
	tr := &http.Transport{
		Proxy:               nil,
		DialContext:         dialer.DialContext,
		MaxIdleConns:        concurrency,
		MaxIdleConnsPerHost: concurrency,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true, // measure the bytes the server sends
		ForceAttemptHTTP2:   false,
	}
	return &http.Client{
		Transport: tr,
		// A redirect is reported as non-2xx, never followed.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
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
	body    []byte
	started atomic.Int64 // measured requests started, for -n
}

func (r *runner) doOne(ctx context.Context, br *bufio.Reader) outcome {
	req, err := http.NewRequestWithContext(ctx, r.cfg.Method, r.cfg.URL, bytes.NewReader(r.body))
	if err != nil {
		return outcome{err: err}
	}
	if len(r.body) == 0 {
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
	if resp.StatusCode < 200 || resp.StatusCode > 299 || !r.cfg.SSE {
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

// readSSE reads an event stream to EOF. It calls onEvent when each event is
// dispatched (at the blank line ending it) and returns the number of events
// and the name of the last one ("message" when unnamed).
func readSSE(br *bufio.Reader, onEvent func()) (events int64, last string, err error) {
	name := ""
	pending := false // a field was seen since the last dispatch
	continued := false
	for {
		line, rerr := br.ReadSlice('\n')
		if rerr != nil && rerr != bufio.ErrBufferFull && rerr != io.EOF {
			return events, last, rerr
		}
		if !continued && len(line) > 0 {
			l := bytes.TrimRight(line, "\r\n")
			switch {
			case len(l) == 0:
				if pending {
					events++
					last = name
					if last == "" {
						last = "message"
					}
					onEvent()
				}
				name, pending = "", false
			case l[0] == ':': // comment
			case bytes.HasPrefix(l, []byte("event:")):
				name = strings.TrimSpace(string(l[len("event:"):]))
				pending = true
			default:
				pending = true
			}
		}
		continued = rerr == bufio.ErrBufferFull
		if rerr == io.EOF {
			return events, last, nil
		}
	}
}

func (r *runner) work(ctx context.Context, measureStart, end time.Time, st *workerStats) {
	var br *bufio.Reader
	if r.cfg.SSE {
		br = bufio.NewReaderSize(nil, 64<<10)
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
		out := r.doOne(ctx, br)
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
	_, err := parseHeaders(c.Headers)
	return err
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
	client := newClient(cfg.Concurrency)
	defer client.CloseIdleConnections()

	r := &runner{cfg: cfg, client: client, header: header, body: []byte(cfg.Body)}

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

func merge(cfg Config, stats []workerStats, elapsed time.Duration) Result {
	res := Result{
		Label:       cfg.Label,
		URL:         cfg.URL,
		Method:      cfg.Method,
		Concurrency: cfg.Concurrency,
		ElapsedSec:  elapsed.Seconds(),
	}
	n := 0
	for i := range stats {
		n += len(stats[i].latencies)
	}
	lat := make([]time.Duration, 0, n)
	var ttfe []time.Duration
	if cfg.SSE {
		ttfe = make([]time.Duration, 0, n)
	}
	var events int64
	for i := range stats {
		s := &stats[i]
		res.Requests += s.requests
		res.Non2xx += s.non2xx
		res.Errors += s.errors
		events += s.events
		if res.FirstError == "" {
			res.FirstError = s.firstError
		}
		lat = append(lat, s.latencies...)
		ttfe = append(ttfe, s.ttfes...)
	}
	res.Failures = res.Non2xx + res.Errors
	res.OK = int64(len(lat))
	res.ReqPerSec = float64(res.OK) / elapsed.Seconds()
	slices.Sort(lat)
	res.LatencyMs = Latency{
		P50: ms(percentile(lat, 0.50)),
		P90: ms(percentile(lat, 0.90)),
		P99: ms(percentile(lat, 0.99)),
		Max: ms(percentile(lat, 1)),
	}
	if cfg.SSE {
		slices.Sort(ttfe)
		res.SSE = &SSEStats{
			Events:       events,
			EventsPerSec: float64(events) / elapsed.Seconds(),
			TTFEP50:      ms(percentile(ttfe, 0.50)),
			TTFEP99:      ms(percentile(ttfe, 0.99)),
		}
	}
	return res
}

// percentile uses the nearest-rank method on a sorted slice.
func percentile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	i = max(0, min(i, len(sorted)-1))
	return sorted[i]
}

func ms(d time.Duration) float64 {
	return math.Round(float64(d)/float64(time.Microsecond)) / 1000
}

// WriteText prints a human-readable report.
func WriteText(w io.Writer, r Result) {
	if r.Label != "" {
		fmt.Fprintf(w, "label     %s\n", r.Label)
	}
	fmt.Fprintf(w, "target    %s %s  (c=%d, %.2fs measured)\n", r.Method, r.URL, r.Concurrency, r.ElapsedSec)
	fmt.Fprintf(w, "requests  %d  ok %d  failures %d (non-2xx %d, errors %d)\n", r.Requests, r.OK, r.Failures, r.Non2xx, r.Errors)
	fmt.Fprintf(w, "req/s     %.1f\n", r.ReqPerSec)
	fmt.Fprintf(w, "latency   p50 %.3fms  p90 %.3fms  p99 %.3fms  max %.3fms\n",
		r.LatencyMs.P50, r.LatencyMs.P90, r.LatencyMs.P99, r.LatencyMs.Max)
	if r.SSE != nil {
		fmt.Fprintf(w, "sse       events %d  events/s %.1f  first-event p50 %.3fms  p99 %.3fms\n",
			r.SSE.Events, r.SSE.EventsPerSec, r.SSE.TTFEP50, r.SSE.TTFEP99)
	}
	if r.FirstError != "" {
		fmt.Fprintf(w, "first failure: %s\n", r.FirstError)
	}
}

func main() {
	var cfg Config
	var headers headerList
	flag.StringVar(&cfg.URL, "url", "", "target URL (loopback only)")
	flag.StringVar(&cfg.Method, "method", http.MethodPost, "HTTP method")
	flag.StringVar(&cfg.Body, "body", "", "request body")
	flag.Var(&headers, "header", `request header "Key: Value" (repeatable)`)
	flag.IntVar(&cfg.Concurrency, "c", 32, "concurrent workers (one request in flight each)")
	flag.DurationVar(&cfg.Duration, "d", 10*time.Second, "measured duration (always bounds the run)")
	flag.Int64Var(&cfg.MaxRequests, "n", 0, "max measured requests (0 = bounded by -d only)")
	flag.DurationVar(&cfg.Warmup, "warmup", time.Second, "warmup before measuring (not counted)")
	flag.DurationVar(&cfg.Grace, "grace", 2*time.Second, "after -d, in-flight requests are cancelled after this (0 = 2s)")
	flag.BoolVar(&cfg.SSE, "sse", false, "read responses as SSE streams, count events and time to first event")
	flag.StringVar(&cfg.SSEFinal, "sse-final", "", "with -sse: a stream must end with this event name (e.g. response.completed)")
	flag.StringVar(&cfg.Label, "label", "", "label copied into the result")
	asJSON := flag.Bool("json", false, "print the result as one JSON object")
	flag.Parse()
	cfg.Headers = headers

	if err := cfg.Validate(); err != nil {
		fmt.Fprintln(os.Stderr, "loadclient:", err)
		os.Exit(2)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := Run(ctx, cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadclient:", err)
		os.Exit(2)
	}

	if *asJSON {
		if err := json.NewEncoder(os.Stdout).Encode(res); err != nil {
			fmt.Fprintln(os.Stderr, "loadclient:", err)
			os.Exit(1)
		}
	} else {
		WriteText(os.Stdout, res)
	}
	if res.FailureRate() > 0.01 {
		fmt.Fprintf(os.Stderr, "loadclient: WARNING: %.2f%% of requests failed (%d of %d): %s\n",
			100*res.FailureRate(), res.Failures, res.Requests, res.FirstError)
	}
	if res.OK == 0 {
		fmt.Fprintln(os.Stderr, "loadclient: WARNING: no successful requests")
	}
	if ctx.Err() != nil {
		// Interrupted: the partial result is printed; exit like a process
		// killed by SIGINT so a calling script stops too.
		fmt.Fprintln(os.Stderr, "loadclient: interrupted")
		os.Exit(130)
	}
}
