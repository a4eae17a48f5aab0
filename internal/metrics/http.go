package metrics

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/harnest/harnest/internal/httplog"
	"github.com/harnest/harnest/internal/statuswriter"

	"github.com/prometheus/client_golang/prometheus"
)

// unmatchedRoute is the route label of a request no pattern matched.
const unmatchedRoute = "unmatched"

// standardMethods bound the method label: a client may send any method.
var standardMethods = map[string]bool{
	http.MethodGet: true, http.MethodHead: true, http.MethodPost: true, http.MethodPut: true,
	http.MethodPatch: true, http.MethodDelete: true, http.MethodOptions: true,
	http.MethodConnect: true, http.MethodTrace: true,
}

// statusLabels are the labels of the status codes 100 to 599, made once:
// strconv.Itoa allocates one for each request otherwise.
var statusLabels = func() (labels [600]string) {
	for code := 100; code < len(labels); code++ {
		labels[code] = strconv.Itoa(code)
	}
	return labels
}()

// statusLabel is the status label of code: its decimal digits.
func statusLabel(code int) string {
	if code >= 100 && code < len(statusLabels) {
		return statusLabels[code]
	}
	return strconv.Itoa(code)
}

// Middleware counts and times every request next answers, by the route
// pattern of mux that serves it, and counts the Server-Sent Events streams
// open now. The route is matched once per request and shared with the
// request log and traces (httplog.Record: noted by httplog.Routes around
// the mux, or found with mux.Handler for a request refused before the mux,
// a 401 or a 408). A request that was a gRPC call (httplog.NoteGRPC) is
// counted as that call (harnest_grpc_*), not as an HTTP request. It keeps
// the response writer transparent: flushing, deadlines (Unwrap, for
// http.ResponseController) and hijacking (WebSockets) pass through. With a
// nil m it returns next.
func (m *Metrics) Middleware(mux *http.ServeMux, next http.Handler) http.Handler {
	if m == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		record := httplog.RecordOf(w)
		rec := &recorder{Writer: statuswriter.Writer{ResponseWriter: w}, m: m}
		rec.Watch = rec
		defer func() {
			rec.endStream()
			took := time.Since(start).Seconds()
			if call, ok := record.GRPC(); ok {
				m.grpc.requests.WithLabelValues(call.Method, call.Code).Inc()
				m.grpc.duration.WithLabelValues(call.Method).Observe(took)
				return
			}
			route := record.Route(mux, r)
			if route == "" {
				route = unmatchedRoute
			}
			method := r.Method
			if !standardMethods[method] {
				method = "other"
			}
			status := rec.Status()
			if status == 0 {
				status = http.StatusOK // nothing written: net/http answers 200
			}
			series := m.httpSeriesOf(route, method, status)
			series.requests.Inc()
			series.duration.Observe(took)
		}()
		next.ServeHTTP(rec, r)
	})
}

// httpLabels are the label values of a request's series.
type httpLabels struct {
	route, method string
	status        int
}

// httpSeries are the series one kind of request counts into, looked up
// once per route, method and status (the labels are bounded: routes are
// the mux's patterns).
type httpSeries struct {
	requests prometheus.Counter
	duration prometheus.Observer
}

// httpSeriesOf returns the series of a route, method and status, made on
// first use.
func (m *Metrics) httpSeriesOf(route, method string, status int) *httpSeries {
	return cached(&m.httpSeries, httpLabels{route, method, status}, func() *httpSeries {
		return &httpSeries{
			requests: m.httpRequests.WithLabelValues(route, method, statusLabel(status)),
			duration: m.httpDuration.WithLabelValues(route, method),
		}
	})
}

// recorder is the request's writer as metrics wraps it: the status
// (statuswriter.Writer, which tells Answered) and the count of an event
// stream (a text/event-stream answer) while it is open.
type recorder struct {
	statuswriter.Writer
	m      *Metrics
	stream bool // counted in m.sseStreams
}

// Answered counts an event stream when its header goes out.
func (r *recorder) Answered(status int) {
	if status == http.StatusOK && strings.HasPrefix(r.Header().Get("Content-Type"), "text/event-stream") {
		r.stream = true
		r.m.sseStreams.Inc()
	}
}

// endStream stops counting the stream once the handler returned.
func (r *recorder) endStream() {
	if r.stream {
		r.stream = false
		r.m.sseStreams.Dec()
	}
}
