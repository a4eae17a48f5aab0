package runtime

import (
	"sync/atomic"
	"time"

	"github.com/harnest/harnest/store"
)

// Transports name what started a response (ResponseRequest.Transport): the
// label metrics count turns by.
const (
	TransportJSON   = "json"   // POST /responses answered as JSON
	TransportSSE    = "sse"    // POST /responses answered as Server-Sent Events
	TransportLive   = "live"   // the /live WebSocket
	TransportAGUI   = "agui"   // POST /agui
	TransportA2A    = "a2a"    // A2A, JSON-RPC or HTTP+JSON
	TransportMCP    = "mcp"    // the /mcp door
	TransportOpenAI = "openai" // the OpenAI-compatible /v1/chat/completions
)

// NeutralTransport is the transport of a POST /responses: TransportSSE
// when it streams, TransportJSON otherwise.
func NeutralTransport(stream bool) string {
	if stream {
		return TransportSSE
	}
	return TransportJSON
}

// Observer is told what the service does, so that metrics can count it. The
// service calls it from the responses' goroutines: its methods must be safe
// for concurrent use, return quickly and never block. They are never given
// a user, a session or any text of a turn.
type Observer interface {
	// TurnEnded is called once per response, when it is over: after its
	// final receipt was recorded (or recording it was given up).
	TurnEnded(TurnReport)
	// AdmissionWaited is called each time a run was given a run slot
	// (maxConcurrentRequests), with how long it waited for it; a run that
	// resumes after an approval or a client tool waits again.
	AdmissionWaited(wait time.Duration)
	// StoreFailed is called for each failure of the state store the
	// runtime met (answered as store_unavailable, or an event log write it
	// had to retry).
	StoreFailed()
	// FollowStarted is called when a follower of a response's events
	// (Service.Follow: GET /responses/{id}/events, a /live follow, an A2A
	// resubscribe, ...) starts reading, and FollowEnded when it leaves:
	// exactly once each, so that their difference is the followers now.
	FollowStarted()
	FollowEnded()
}

// TurnReport is what Observer.TurnEnded learns of a response.
type TurnReport struct {
	// Transport is ResponseRequest.Transport ("" when the caller set none).
	Transport string
	// Status is the final receipt's status: completed, failed, cancelled
	// or denied.
	Status string
	// Code is the receipt's error code (timed_out, invocation_failed, ...);
	// "" when the response completed or was denied.
	Code string
	// Duration is from StartResponse to the end, waits for approvals and
	// client tools included.
	Duration time.Duration
	// FirstEvent is from StartResponse to the agent's first event that
	// callers see; zero when the agent emitted none.
	FirstEvent time.Duration
	// Usage is the token usage the agent reported (zero when none).
	Usage Usage
	// UsageLines are what the turn added to the usage counters, per
	// backend and model (usage.go); nil when its receipt was not this
	// replica's to count.
	UsageLines []store.UsageLine
}

// noObserver is the Observer of a service that was given none.
type noObserver struct{}

func (noObserver) TurnEnded(TurnReport)          {}
func (noObserver) AdmissionWaited(time.Duration) {}
func (noObserver) StoreFailed()                  {}
func (noObserver) FollowStarted()                {}
func (noObserver) FollowEnded()                  {}

// turnWatch measures one response for its TurnReport.
type turnWatch struct {
	transport string
	started   time.Time
	// firstEvent is the agent's first event, in nanoseconds after started
	// (at least 1); 0 until then. Agents may emit from several goroutines.
	firstEvent atomic.Int64
}

// agentEmitted notes the agent's first event.
func (w *turnWatch) agentEmitted() {
	if w.firstEvent.Load() == 0 {
		w.firstEvent.CompareAndSwap(0, max(int64(time.Since(w.started)), 1))
	}
}

// reportEnd tells the observer how the response ended: env is its final
// envelope, fail why it did not complete (nil when it did), usage what
// its receipt added to the usage counters (usage.go). It is called
// before the caller has its answer, so that metrics already count it.
func (r *Response) reportEnd(env Envelope, fail *Error, usage []store.UsageLine) {
	report := TurnReport{UsageLines: usage,
		Transport:  r.watch.transport,
		Status:     env.Status,
		Duration:   time.Since(r.watch.started),
		FirstEvent: time.Duration(r.watch.firstEvent.Load()),
	}
	if env.Error != nil {
		report.Code = env.Error.Code
	} else if fail != nil && env.Status != StatusDenied {
		report.Code = fail.Code
	}
	r.mu.Lock()
	if r.out.usage != nil {
		report.Usage = *r.out.usage
	}
	r.mu.Unlock()
	r.svc.observer.TurnEnded(report)
	r.endTrace(report)
}

// ActiveResponses is how many responses this replica holds: running,
// waiting for a run slot, or suspended on an approval or a client tool.
func (s *Service) ActiveResponses() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.byID)
}

// QueuedRuns is how many runs wait for a run slot (maxConcurrentRequests)
// on this replica.
func (s *Service) QueuedRuns() int {
	a := s.admission
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.queued
}

// TransportSchedule names the turns a schedule started (package schedule).
const TransportSchedule = "schedule"
