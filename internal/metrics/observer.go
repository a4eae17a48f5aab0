package metrics

import (
	"time"

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
	runtime.TransportOpenAI: true,
}

// knownStatuses bounds the status label; anything else is "other".
var knownStatuses = map[string]bool{
	runtime.StatusCompleted: true, runtime.StatusFailed: true,
	runtime.StatusCancelled: true, runtime.StatusDenied: true,
}

func (o turnObserver) TurnEnded(r runtime.TurnReport) {
	m := o.m
	transport := oneOf(r.Transport, knownTransports)
	m.turns.WithLabelValues(transport, m.backend, oneOf(r.Status, knownStatuses)).Inc()
	m.turnDuration.WithLabelValues(transport, m.backend).Observe(r.Duration.Seconds())
	if r.FirstEvent > 0 {
		m.turnFirstEvent.WithLabelValues(transport).Observe(r.FirstEvent.Seconds())
	}
	if r.Usage.InputTokens > 0 {
		m.modelTokens.WithLabelValues("input").Add(float64(r.Usage.InputTokens))
	}
	if r.Usage.OutputTokens > 0 {
		m.modelTokens.WithLabelValues("output").Add(float64(r.Usage.OutputTokens))
	}
}

func (o turnObserver) AdmissionWaited(wait time.Duration) {
	o.m.admissionWait.Observe(wait.Seconds())
}

func (o turnObserver) StoreFailed() { o.m.storeFailures.Inc() }

func (o turnObserver) FollowStarted() { o.m.followers.Inc() }
func (o turnObserver) FollowEnded()   { o.m.followers.Dec() }

// oneOf is v when known holds it, else "other".
func oneOf(v string, known map[string]bool) string {
	if known[v] {
		return v
	}
	return "other"
}
