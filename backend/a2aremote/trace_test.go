package a2aremote

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/harnest/harnest/internal/netguard"
)

// Every request to the remote agent carries the W3C traceparent of the
// turn's span.
func TestRemoteRequestsCarryTraceParent(t *testing.T) {
	got := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.Header.Get("Traceparent")
	}))
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	client := httpClient(netguard.Policy{AllowHosts: []string{u.Hostname()}, AllowHTTPLoopback: true}, 5*time.Second)

	traceID, _ := trace.TraceIDFromHex("4bf92f3577b34da6a3ce929d0e0e4736")
	spanID, _ := trace.SpanIDFromHex("00f067aa0ba902b7")
	ctx := trace.ContextWithSpanContext(context.Background(),
		trace.NewSpanContext(trace.SpanContextConfig{TraceID: traceID, SpanID: spanID, TraceFlags: trace.FlagsSampled}))
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if tp, want := <-got, "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"; tp != want {
		t.Errorf("the remote agent got traceparent %q, want %q", tp, want)
	}
}
