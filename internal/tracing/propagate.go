package tracing

import (
	"context"
	"net/http"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// Inject writes the W3C traceparent (and tracestate) of ctx's span into h,
// for an outbound request; it writes nothing when ctx has no span.
func Inject(ctx context.Context, h http.Header) {
	traceContext.Inject(ctx, propagation.HeaderCarrier(h))
}

// TraceParent is the W3C traceparent of ctx's span ("00-<trace>-<span>-<flags>"),
// "" when ctx has no span: what exec programs get as TRACEPARENT and
// workers in their turn line.
func TraceParent(ctx context.Context) string {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return ""
	}
	carrier := propagation.MapCarrier{}
	traceContext.Inject(ctx, carrier)
	return carrier.Get("traceparent")
}

// Transport wraps base (nil: http.DefaultTransport) so that every request
// carries the traceparent of its context's span. A request whose context
// has no span is sent as is.
func Transport(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return &propagatingTransport{base: base}
}

// propagatingTransport adds the trace headers to a copy of each request
// (a RoundTripper must not change the request it was given).
type propagatingTransport struct {
	base http.RoundTripper
}

func (t *propagatingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if trace.SpanContextFromContext(req.Context()).IsValid() {
		req = req.Clone(req.Context())
		Inject(req.Context(), req.Header)
	}
	return t.base.RoundTrip(req)
}

// CloseIdleConnections lets http.Client.CloseIdleConnections reach base.
func (t *propagatingTransport) CloseIdleConnections() {
	if c, ok := t.base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}
