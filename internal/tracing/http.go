package tracing

import (
	"bufio"
	"errors"
	"net"
	"net/http"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/harnest/harnest/internal/httplog"
)

// traceContext reads and writes W3C traceparent and tracestate headers.
var traceContext = propagation.TraceContext{}

// Middleware makes one server span per request next answers, named by the
// route pattern of mux that serves it. The route is matched once per
// request and shared with the request log and metrics (httplog.Record:
// noted by httplog.Routes around the mux, or found with mux.Handler for a
// request refused before the mux, a 401 or a 408), so the span gets its
// final name and http.route when the answer is over. A W3C traceparent on
// the request makes the span part of the caller's trace. The span holds
// the method, the route and the status, never the path's values, the
// query or a header. The response writer stays transparent: flushing,
// deadlines (Unwrap) and hijacking pass through. With a nil t it returns
// next.
func (t *Tracing) Middleware(mux *http.ServeMux, next http.Handler) http.Handler {
	if t == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		record := httplog.RecordOf(w)
		ctx := traceContext.Extract(r.Context(), propagation.HeaderCarrier(r.Header))
		ctx, span := t.tracer.Start(ctx, methodOf(r), trace.WithSpanKind(trace.SpanKindServer),
			trace.WithAttributes(attribute.String("http.request.method", methodOf(r))))
		defer span.End()
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r.WithContext(ctx))
		pattern := record.Route(mux, r)
		span.SetName(spanName(r, pattern))
		if route := routeOf(pattern); route != "" {
			span.SetAttributes(attribute.String("http.route", route))
		}
		status := sw.status
		if status == 0 {
			status = http.StatusOK // nothing written: net/http answers 200
		}
		span.SetAttributes(attribute.Int("http.response.status_code", status))
		if status >= 500 {
			span.SetStatus(codes.Error, http.StatusText(status))
		}
	})
}

// standardMethods bound the method attribute: a client may send any method.
var standardMethods = map[string]bool{
	http.MethodGet: true, http.MethodHead: true, http.MethodPost: true, http.MethodPut: true,
	http.MethodPatch: true, http.MethodDelete: true, http.MethodOptions: true,
	http.MethodConnect: true, http.MethodTrace: true,
}

// methodOf is the request's method, or _OTHER for a method HTTP does not
// define (as the HTTP semantic conventions say).
func methodOf(r *http.Request) string {
	if standardMethods[r.Method] {
		return r.Method
	}
	return "_OTHER"
}

// routeOf is the path part of a mux pattern ("POST /responses" gives
// "/responses"); "" when no pattern matched.
func routeOf(pattern string) string {
	if i := strings.IndexByte(pattern, ' '); i >= 0 {
		return pattern[i+1:]
	}
	return pattern
}

// spanName is "METHOD route", or the method alone when no route matched.
func spanName(r *http.Request, pattern string) string {
	if route := routeOf(pattern); route != "" {
		return methodOf(r) + " " + route
	}
	return methodOf(r)
}

// statusWriter remembers the status a handler answered with.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 && code >= 200 { // 1xx answers come before the real one
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// FlushError flushes (http.ResponseController calls it first).
func (w *statusWriter) FlushError() error {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return http.NewResponseController(w.ResponseWriter).Flush()
}

// Flush is http.Flusher, for code that asserts it.
func (w *statusWriter) Flush() { _ = w.FlushError() }

// Unwrap lets http.ResponseController reach deadlines and the rest.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Hijack passes a WebSocket upgrade through; it is recorded as 101.
func (w *statusWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	h, ok := w.ResponseWriter.(http.Hijacker)
	if !ok {
		return nil, nil, errors.New("tracing: the response writer cannot be hijacked")
	}
	conn, rw, err := h.Hijack()
	if err == nil && w.status == 0 {
		w.status = http.StatusSwitchingProtocols
	}
	return conn, rw, err
}
