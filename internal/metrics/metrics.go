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
		httpRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "harnest_http_requests_total",
			Help: "HTTP requests answered, by route pattern, method and status.",
		}, []string{"route", "method", "status"}),
		httpDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "harnest_http_request_duration_seconds", Buckets: httpBuckets,
			Help: "Time from a request's arrival to the end of its answer (streams included), by route pattern and method.",
		}, []string{"route", "method"}),
		sseStreams: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "harnest_sse_streams",
			Help: "Server-Sent Events streams open now.",
		}),
		turns: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "harnest_turns_total",
			Help: "Turns (responses) that ended, by transport, backend and final status.",
		}, []string{"transport", "backend", "status"}),
		turnDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "harnest_turn_duration_seconds", Buckets: turnBuckets,
			Help: "Time from a turn's start to its end (waits for approvals and client tools included).",
		}, []string{"transport", "backend"}),
		turnFirstEvent: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "harnest_turn_first_event_seconds", Buckets: firstEventBuckets,
			Help: "Time from a turn's start to the agent's first event, for turns with one.",
		}, []string{"transport"}),
		admissionWait: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "harnest_admission_wait_seconds", Buckets: waitBuckets,
			Help: "Time runs waited for a run slot (server.http.maxConcurrentRequests).",
		}),
		storeFailures: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "harnest_store_failures_total",
			Help: "State store failures the runtime met (answered as store_unavailable, or an event log write it retried).",
		}),
		modelTokens: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "harnest_model_tokens_total",
			Help: "Model tokens the turns reported, by direction (input or output).",
		}, []string{"direction"}),
		followers: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "harnest_followers",
			Help: "Followers of responses' event streams now (GET /responses/{id}/events, /live and A2A resubscribes, ...).",
		}),
		runClaims: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "harnest_run_claims_total",
			Help: "Runs of lost replicas this replica claimed (event claimed), ran again (resumed), writes of an attempt refused because another replica claimed its run (fenced), and running turns this replica handed to the others when it shut down (handed_off).",
		}, []string{"event"}),
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
