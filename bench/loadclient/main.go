// Command loadclient is a small closed-loop HTTP load generator for the
// harnest benchmark. It only targets loopback addresses.
//
// Each of -c workers sends one request at a time, reads the whole response
// and starts the next one. Requests during -warmup are not counted; after
// it, requests are counted for -d (or until -n requests were started). The
// run is bounded: no request starts after the end of -d, and requests still
// in flight are cancelled -grace after it (and counted as errors).
//
// With -prepare-url, a JSON POST is made before each measured request (or
// once per worker, -prepare-every worker) and a field of its answer
// replaces {{prepared}} in -url and -body: a server that needs a session
// created first (ADK's /run_sse) gets one.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

// headerList is a repeatable -header flag.
type headerList []string

func (h *headerList) String() string     { return strings.Join(*h, ", ") }
func (h *headerList) Set(v string) error { *h = append(*h, v); return nil }

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
	flag.StringVar(&cfg.Expect, "expect", "", "without -sse: every 2xx body must contain this text (else it counts as an error)")
	flag.StringVar(&cfg.Prepare.URL, "prepare-url", "", "POST this (loopback) URL first; its answer's -prepare-field replaces "+Placeholder+" in -url and -body")
	flag.StringVar(&cfg.Prepare.Body, "prepare-body", "{}", "JSON body of the prepare request")
	flag.StringVar(&cfg.Prepare.Field, "prepare-field", "id", "string field of the prepare answer to use")
	flag.StringVar(&cfg.Prepare.Every, "prepare-every", "request", "prepare before every request, or once per worker (request or worker)")
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
