// Package otlpreceiver is an OTLP/HTTP trace receiver for tests: an
// httptest server on 127.0.0.1 that decodes every protobuf
// ExportTraceServiceRequest posted to /v1/traces and keeps its spans and
// its raw bytes.
package otlpreceiver

import (
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// Receiver collects exported spans. Its methods are safe for concurrent
// use.
type Receiver struct {
	// URL is the receiver's base (http://127.0.0.1:port): the value of
	// OTEL_EXPORTER_OTLP_ENDPOINT.
	URL string

	mu    sync.Mutex
	spans []*tracepb.Span
	raw   []byte // every request body, decompressed, one after the other
	bad   []string
}

// Start starts a receiver on loopback; it stops when the test ends.
func Start(t testing.TB) *Receiver {
	t.Helper()
	r := &Receiver{}
	hs := httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(hs.Close)
	r.URL = hs.URL
	return r
}

// serve decodes one export request.
func (r *Receiver) serve(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodPost || req.URL.Path != "/v1/traces" {
		r.fail("unexpected " + req.Method + " " + req.URL.Path)
		http.NotFound(w, req)
		return
	}
	var body io.Reader = req.Body
	if req.Header.Get("Content-Encoding") == "gzip" {
		gz, err := gzip.NewReader(req.Body)
		if err != nil {
			r.fail("gzip: " + err.Error())
			http.Error(w, "bad gzip", http.StatusBadRequest)
			return
		}
		body = gz
	}
	b, err := io.ReadAll(io.LimitReader(body, 16<<20))
	if err != nil {
		http.Error(w, "cannot read", http.StatusBadRequest)
		return
	}
	var export coltracepb.ExportTraceServiceRequest
	if err := proto.Unmarshal(b, &export); err != nil {
		r.fail("decode: " + err.Error())
		http.Error(w, "not an ExportTraceServiceRequest", http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	r.raw = append(r.raw, b...)
	for _, rs := range export.GetResourceSpans() {
		for _, ss := range rs.GetScopeSpans() {
			r.spans = append(r.spans, ss.GetSpans()...)
		}
	}
	r.mu.Unlock()
	answer, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(answer)
}

func (r *Receiver) fail(why string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.bad = append(r.bad, why)
}

// Spans are the spans received so far, in arrival order.
func (r *Receiver) Spans() []*tracepb.Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*tracepb.Span(nil), r.spans...)
}

// Raw is every export request's bytes received so far, one after the
// other (to check that some text appears nowhere).
func (r *Receiver) Raw() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]byte(nil), r.raw...)
}

// Problems are the requests the receiver could not take, described.
func (r *Receiver) Problems() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.bad...)
}

// WaitFor waits up to timeout for spans for which done holds, polling,
// and returns the spans received by then.
func (r *Receiver) WaitFor(timeout time.Duration, done func([]*tracepb.Span) bool) []*tracepb.Span {
	deadline := time.Now().Add(timeout)
	for {
		spans := r.Spans()
		if done(spans) || time.Now().After(deadline) {
			return spans
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Attr is the value of span's attribute key: a string, an int64, a bool,
// a []string, or nil when the span has none.
func Attr(span *tracepb.Span, key string) any {
	for _, kv := range span.GetAttributes() {
		if kv.GetKey() != key {
			continue
		}
		switch v := kv.GetValue().GetValue().(type) {
		case *commonpb.AnyValue_StringValue:
			return v.StringValue
		case *commonpb.AnyValue_IntValue:
			return v.IntValue
		case *commonpb.AnyValue_BoolValue:
			return v.BoolValue
		case *commonpb.AnyValue_ArrayValue:
			var out []string
			for _, e := range v.ArrayValue.GetValues() {
				out = append(out, e.GetStringValue())
			}
			return out
		}
	}
	return nil
}
