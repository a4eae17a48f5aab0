package tracing_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/harnest/harnest/internal/tracing"
	"github.com/harnest/harnest/internal/tracing/otlpreceiver"
	"github.com/harnest/harnest/runtime"
)

const (
	callerTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
	callerSpan  = "00f067aa0ba902b7"
	callerTP    = "00-" + callerTrace + "-" + callerSpan + "-01"
)

// traced sets tracing up against a receiver of the test; it is shut down
// when the test ends.
func traced(t *testing.T) (*tracing.Tracing, *otlpreceiver.Receiver) {
	t.Helper()
	receiver := otlpreceiver.Start(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.URL)
	tr, err := tracing.FromEnv(context.Background())
	if err != nil || tr == nil {
		t.Fatalf("FromEnv = %v, %v; want tracing on", tr, err)
	}
	t.Cleanup(func() { _ = tr.Shutdown(context.Background()) })
	return tr, receiver
}

// flushed exports what ended and returns what the receiver got.
func flushed(t *testing.T, tr *tracing.Tracing, r *otlpreceiver.Receiver) []*tracepb.Span {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := tr.ForceFlush(ctx); err != nil {
		t.Fatalf("ForceFlush: %v", err)
	}
	if p := r.Problems(); len(p) > 0 {
		t.Fatalf("the receiver refused exports: %v", p)
	}
	return r.Spans()
}

func spanNamed(spans []*tracepb.Span, name string) *tracepb.Span {
	for _, s := range spans {
		if s.Name == name {
			return s
		}
	}
	return nil
}

func TestOffWithoutEndpoint(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "")
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
	tr, err := tracing.FromEnv(context.Background())
	if tr != nil || err != nil {
		t.Fatalf("FromEnv = %v, %v; want nil, nil", tr, err)
	}
	next := http.NotFoundHandler()
	if h := tr.Middleware(http.NewServeMux(), next); h == nil {
		t.Error("a nil Tracing's Middleware returned nil")
	}
	if tr.TurnTracer() != nil {
		t.Error("a nil Tracing has a turn tracer")
	}
	if err := tr.Shutdown(context.Background()); err != nil {
		t.Errorf("Shutdown of nil: %v", err)
	}
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://127.0.0.1:9/v1/traces")
	t.Setenv("OTEL_SDK_DISABLED", "true")
	if tracing.Enabled() {
		t.Error("Enabled with OTEL_SDK_DISABLED=true")
	}
}

// A request span is named by the route pattern, continues the caller's
// trace, holds the status, and is the parent of the turn span.
func TestRequestAndTurnSpans(t *testing.T) {
	tr, receiver := traced(t)
	turns := tr.TurnTracer()
	mux := http.NewServeMux()
	mux.HandleFunc("POST /sessions/{id}/responses", func(w http.ResponseWriter, r *http.Request) {
		ctx, end := turns.StartTurn(r.Context(), runtime.TurnInfo{ResponseID: "resp_1", SessionID: "sess_1", Transport: runtime.TransportJSON})
		_, call := tracing.StartModelCall(ctx, "m", "openai")
		call.End(tracing.ModelCallResult{Model: "m-1", FinishReason: "stop", InputTokens: 3, OutputTokens: 1, HasUsage: true}, nil)
		_, tool := tracing.StartToolCall(ctx, "lookup", "call_1")
		tool.End(true, nil)
		end(runtime.TurnReport{Status: runtime.StatusFailed, Code: "invocation_failed"})
		w.WriteHeader(http.StatusTeapot)
	})
	srv := httptest.NewServer(tr.Middleware(mux, mux))
	t.Cleanup(srv.Close)

	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/sessions/sess_secret/responses?token=hush", nil)
	req.Header.Set("Traceparent", callerTP)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	resp, err = http.Get(srv.URL + "/nowhere")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()

	spans := flushed(t, tr, receiver)
	request := spanNamed(spans, "POST /sessions/{id}/responses")
	if request == nil {
		t.Fatalf("no request span in %v", spans)
	}
	if hex.EncodeToString(request.TraceId) != callerTrace || hex.EncodeToString(request.ParentSpanId) != callerSpan {
		t.Errorf("request span trace %x parent %x, want the caller's", request.TraceId, request.ParentSpanId)
	}
	if otlpreceiver.Attr(request, "http.response.status_code") != int64(http.StatusTeapot) ||
		otlpreceiver.Attr(request, "http.route") != "/sessions/{id}/responses" {
		t.Errorf("request span attributes = %v", request.Attributes)
	}
	turn := spanNamed(spans, "invoke_agent harnest")
	if turn == nil || !bytes.Equal(turn.ParentSpanId, request.SpanId) {
		t.Fatalf("turn span %v is not the request's child", turn)
	}
	if otlpreceiver.Attr(turn, "error.type") != "invocation_failed" || turn.Status.GetCode() != tracepb.Status_STATUS_CODE_ERROR {
		t.Errorf("turn span = %v", turn)
	}
	call := spanNamed(spans, "chat m")
	if call == nil || !bytes.Equal(call.ParentSpanId, turn.SpanId) || otlpreceiver.Attr(call, "gen_ai.response.model") != "m-1" {
		t.Errorf("model call span = %v", call)
	}
	tool := spanNamed(spans, "execute_tool lookup")
	if tool == nil || !bytes.Equal(tool.ParentSpanId, turn.SpanId) || otlpreceiver.Attr(tool, "error.type") != "tool_error" {
		t.Errorf("tool span = %v", tool)
	}
	if unmatched := spanNamed(spans, "GET"); unmatched == nil || otlpreceiver.Attr(unmatched, "http.response.status_code") != int64(404) {
		t.Errorf("unmatched request span = %v", unmatched)
	}
	raw := receiver.Raw()
	for _, secret := range []string{"sess_secret", "hush"} {
		if bytes.Contains(raw, []byte(secret)) {
			t.Errorf("the exported spans contain %q (the path's values or the query)", secret)
		}
	}
}

// Outbound requests carry the trace of their context's span.
func TestPropagation(t *testing.T) {
	if got := tracing.TraceParent(context.Background()); got != "" {
		t.Errorf("TraceParent without a span = %q", got)
	}
	tr, _ := traced(t)
	var mu sync.Mutex
	var seen []string
	note := func(s string) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, s)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/in", func(w http.ResponseWriter, r *http.Request) {
		if got := tracing.TraceParent(r.Context()); len(got) != len(callerTP) || got[3:35] != callerTrace {
			t.Errorf("TraceParent in the request = %q, want trace %s", got, callerTrace)
		}
		out, _ := http.NewRequestWithContext(r.Context(), http.MethodGet, "http://"+r.Host+"/out", nil)
		client := &http.Client{Transport: tracing.Transport(nil)}
		resp, err := client.Do(out)
		if err != nil {
			t.Error(err)
			return
		}
		resp.Body.Close()
		if out.Header.Get("Traceparent") != "" {
			t.Error("Transport changed the caller's request")
		}
		h := http.Header{}
		tracing.Inject(r.Context(), h)
		note("inject:" + h.Get("Traceparent"))
	})
	mux.HandleFunc("/out", func(w http.ResponseWriter, r *http.Request) {
		note("out:" + r.Header.Get("Traceparent"))
	})
	srv := httptest.NewServer(tr.Middleware(mux, mux))
	t.Cleanup(srv.Close)
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/in", nil)
	req.Header.Set("Traceparent", callerTP)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 2 {
		t.Fatalf("seen = %v", seen)
	}
	for _, s := range seen {
		if !bytes.Contains([]byte(s), []byte("00-"+callerTrace+"-")) {
			t.Errorf("%s does not carry the caller's trace", s)
		}
	}
}
