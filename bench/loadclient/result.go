package main

import (
	"math"
	"slices"
	"time"
)

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
