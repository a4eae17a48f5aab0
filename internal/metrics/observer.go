package metrics

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/harnest/harnest/runtime"
)

// Observer is what the runtime tells about turns (runtime.Options.Observer);
// nil when m is nil, so that a server without metrics pays nothing.
func (m *Metrics) Observer() runtime.Observer {
	if m == nil {
		return nil
	}
	return turnObserver{m}
}

// turnObserver counts turns, admission waits, store failures and
// followers.
type turnObserver struct{ m *Metrics }

// knownTransports bounds the transport label; anything else is "other".
var knownTransports = map[string]bool{
	runtime.TransportJSON: true, runtime.TransportSSE: true, runtime.TransportLive: true,
	runtime.TransportAGUI: true, runtime.TransportA2A: true, runtime.TransportMCP: true,
	runtime.TransportOpenAI: true, runtime.TransportSchedule: true, runtime.TransportTrigger: true,
}

// knownStatuses bounds the status label; anything else is "other".
var knownStatuses = map[string]bool{
	runtime.StatusCompleted: true, runtime.StatusFailed: true,
	runtime.StatusCancelled: true, runtime.StatusDenied: true,
}

func (o turnObserver) TurnEnded(r runtime.TurnReport) {
	m := o.m
	series := m.turnSeriesOf(oneOf(r.Transport, knownTransports), oneOf(r.Status, knownStatuses))
	series.turns.Inc()
	series.duration.Observe(r.Duration.Seconds())
	if r.FirstEvent > 0 {
		m.firstEventOf(series.transport).Observe(r.FirstEvent.Seconds())
	}
	if r.Usage.InputTokens > 0 {
		m.modelTokens.WithLabelValues("input").Add(float64(r.Usage.InputTokens))
	}
	if r.Usage.OutputTokens > 0 {
		m.modelTokens.WithLabelValues("output").Add(float64(r.Usage.OutputTokens))
	}
	m.usage.count(r.UsageLines)
}

// turnLabels are the label values of a turn's series.
type turnLabels struct{ transport, status string }

// turnSeries are the series one kind of turn counts into, looked up once
// per kind (a vector's label lookup hashes every value on every call; the
// labels are bounded, so the cache is too).
type turnSeries struct {
	transport string
	turns     prometheus.Counter
	duration  prometheus.Observer
}

// turnSeriesOf returns the series of a transport and status, made on first
// use (so that a scrape shows only the series that have counted).
func (m *Metrics) turnSeriesOf(transport, status string) *turnSeries {
	return cached(&m.series, turnLabels{transport, status}, func() *turnSeries {
		return &turnSeries{
			transport: transport,
			turns:     m.turns.WithLabelValues(transport, m.backend, status),
			duration:  m.turnDuration.WithLabelValues(transport, m.backend),
		}
	})
}

// firstEventOf returns the first-event histogram of a transport, made on
// the first turn of it that has a first event.
func (m *Metrics) firstEventOf(transport string) prometheus.Observer {
	return cached(&m.firstEvents, transport, func() prometheus.Observer {
		return m.turnFirstEvent.WithLabelValues(transport)
	})
}

// cached returns the value kept under key in m, made by build on the first
// call for the key (a series looked up by its labels once, not hashed by
// the vector on every observation).
func cached[K comparable, V any](m *sync.Map, key K, build func() V) V {
	if v, ok := m.Load(key); ok {
		return v.(V)
	}
	v, _ := m.LoadOrStore(key, build())
	return v.(V)
}

func (o turnObserver) AdmissionWaited(wait time.Duration) {
	o.m.admissionWait.Observe(wait.Seconds())
}

func (o turnObserver) StoreFailed() { o.m.storeFailures.Inc() }

// RunClaimed, RunResumed and WriteFenced count the claims of lost
// replicas' runs (runtime.DurabilityObserver).
func (o turnObserver) RunClaimed()  { o.m.runClaims.WithLabelValues("claimed").Inc() }
func (o turnObserver) RunResumed()  { o.m.runClaims.WithLabelValues("resumed").Inc() }
func (o turnObserver) WriteFenced() { o.m.runClaims.WithLabelValues("fenced").Inc() }

// RunHandedOff counts the running turns this replica handed to the others
// when it shut down (runtime.HandoffObserver).
func (o turnObserver) RunHandedOff() { o.m.runClaims.WithLabelValues("handed_off").Inc() }

func (o turnObserver) FollowStarted() { o.m.followers.Inc() }
func (o turnObserver) FollowEnded()   { o.m.followers.Dec() }

// oneOf is v when known holds it, else "other".
func oneOf(v string, known map[string]bool) string {
	if known[v] {
		return v
	}
	return "other"
}
