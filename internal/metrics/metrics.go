package metrics

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// Metrics is one replica's collectors on its own registry. A nil *Metrics
// (server.metrics: false) measures nothing: its methods return nil or the
// handler they were given.
type Metrics struct {
	registry *prometheus.Registry
	backend  string // the backend label of every turn
	// The series already used: turnLabels -> *turnSeries and transport ->
	// first-event prometheus.Observer (observer.go), httpLabels ->
	// *httpSeries (http.go).
	series, firstEvents, httpSeries sync.Map

	httpRequests *prometheus.CounterVec
	httpDuration *prometheus.HistogramVec
	sseStreams   prometheus.Gauge

	turns          *prometheus.CounterVec
	turnDuration   *prometheus.HistogramVec
	turnFirstEvent *prometheus.HistogramVec
	admissionWait  prometheus.Histogram
	storeFailures  prometheus.Counter
	modelTokens    *prometheus.CounterVec
	followers      prometheus.Gauge
	runClaims      *prometheus.CounterVec

	store storeMetrics  // store.go
	grpc  grpcMetrics   // grpc.go
	usage *usageMetrics // usage.go
}

// Options configure Metrics.
type Options struct {
	// Backend is the configured backend's kind (see BackendKind): the
	// backend label of the turn metrics.
	Backend string
}

// Buckets of the histograms, in seconds.
var (
	httpBuckets       = prometheus.DefBuckets
	turnBuckets       = []float64{0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300}
	firstEventBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30}
	waitBuckets       = []float64{0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60}
)

// New builds the collectors and registers them, with the Go runtime and
// process collectors, on a new registry.
func New(o Options) *Metrics {
	backend := o.Backend
	if backend == "" {
		backend = "unknown"
	}
	m := &Metrics{
		registry: prometheus.NewRegistry(),
		backend:  backend,
		httpRequests: counterVec("harnest_http_requests_total",
			"HTTP requests answered, by route pattern, method and status.", "route", "method", "status"),
		httpDuration: histogramVec("harnest_http_request_duration_seconds",
			"Time from a request's arrival to the end of its answer (streams included), by route pattern and method.", httpBuckets, "route", "method"),
		sseStreams: gauge("harnest_sse_streams",
			"Server-Sent Events streams open now."),
		turns: counterVec("harnest_turns_total",
			"Turns (responses) that ended, by transport, backend and final status.", "transport", "backend", "status"),
		turnDuration: histogramVec("harnest_turn_duration_seconds",
			"Time from a turn's start to its end (waits for approvals and client tools included).", turnBuckets, "transport", "backend"),
		turnFirstEvent: histogramVec("harnest_turn_first_event_seconds",
			"Time from a turn's start to the agent's first event, for turns with one.", firstEventBuckets, "transport"),
		admissionWait: histogram("harnest_admission_wait_seconds",
			"Time runs waited for a run slot (server.http.maxConcurrentRequests).", waitBuckets),
		storeFailures: counter("harnest_store_failures_total",
			"State store failures the runtime met (answered as store_unavailable, or an event log write it retried)."),
		modelTokens: counterVec("harnest_model_tokens_total",
			"Model tokens the turns reported, by direction (input or output).", "direction"),
		followers: gauge("harnest_followers",
			"Followers of responses' event streams now (GET /responses/{id}/events, /live and A2A resubscribes, ...)."),
		runClaims: counterVec("harnest_run_claims_total",
			"Runs of lost replicas this replica claimed (event claimed), ran again (resumed), writes of an attempt refused because another replica claimed its run (fenced), and running turns this replica handed to the others when it shut down (handed_off).", "event"),
		store: newStoreMetrics(),
		grpc:  newGRPCMetrics(),
		usage: newUsageMetrics(),
	}
	m.registry.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.httpRequests, m.httpDuration, m.sseStreams,
		m.turns, m.turnDuration, m.turnFirstEvent, m.admissionWait, m.storeFailures, m.modelTokens, m.followers,
		m.runClaims,
	)
	m.registry.MustRegister(m.store.collectors()...)
	m.registry.MustRegister(m.grpc.collectors()...)
	m.registry.MustRegister(m.usage.collectors()...)
	return m
}

// Registry is the registry the collectors are on (to add more, or to
// gather in tests).
func (m *Metrics) Registry() *prometheus.Registry {
	if m == nil {
		return nil
	}
	return m.registry
}
