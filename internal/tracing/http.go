package tracing

import (
	"net/http"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/harnest/harnest/internal/httplog"
	"github.com/harnest/harnest/internal/statuswriter"
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
		sw := &statuswriter.Writer{ResponseWriter: w}
		next.ServeHTTP(sw, r.WithContext(ctx))
		pattern := record.Route(mux, r)
		span.SetName(spanName(r, pattern))
		if route := routeOf(pattern); route != "" {
			span.SetAttributes(attribute.String("http.route", route))
		}
		status := sw.Status()
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
