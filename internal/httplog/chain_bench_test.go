package httplog_test

import (
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/harnest/harnest/internal/auth"
	"github.com/harnest/harnest/internal/httpapi"
	"github.com/harnest/harnest/internal/httplog"
	"github.com/harnest/harnest/internal/logbuf"
	"github.com/harnest/harnest/internal/metrics"
	"github.com/harnest/harnest/internal/tracing"
)

// sinkWriter is a reusable response writer that, like net/http's, takes
// read deadlines: the benchmark counts the middlewares' allocations, not
// a recorder's.
type sinkWriter struct {
	header http.Header
	code   int
}

func (w *sinkWriter) Header() http.Header         { return w.header }
func (w *sinkWriter) WriteHeader(code int)        { w.code = code }
func (w *sinkWriter) Write(p []byte) (int, error) { return len(p), nil }

// SetReadDeadline is what http.ResponseController calls.
func (w *sinkWriter) SetReadDeadline(time.Time) error { return nil }

// bodyReader is a request body that can be read again.
type bodyReader struct{ strings.Reader }

func (b *bodyReader) Close() error { return nil }

// chain is the request middlewares of server/routes.go, in the same order
// and with the server's defaults (no auth tokens, no rate limit, no
// allowed origins, tracing off), around a handler that reads the body and
// answers a small JSON object.
func chain(log *slog.Logger) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /responses", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"status":"completed"}`))
	})
	var tr *tracing.Tracing // off, as without OTEL_EXPORTER_OTLP_ENDPOINT
	authn := auth.New(nil, nil)
	inner := httpapi.CORS(nil, tr.Middleware(mux, httpapi.BodyGuard(60*time.Second, authn.Middleware(
		httpapi.RateLimit(httpapi.RateLimitOptions{}, httplog.Routes(mux))))))
	return httplog.Middleware(log, metrics.New(metrics.Options{}).Middleware(mux, inner))
}

// BenchmarkChain measures the middlewares of one JSON request with the
// request log off, and on in text and JSON through the batched writer:
// with slog's handlers and with harnest's.
func BenchmarkChain(b *testing.B) {
	logs := []struct {
		name string
		log  func(w io.Writer) *slog.Logger
	}{
		{"off", func(io.Writer) *slog.Logger { return slog.New(slog.DiscardHandler) }},
		{"slogtext", func(w io.Writer) *slog.Logger { return slog.New(slog.NewTextHandler(w, nil)) }},
		{"slogjson", func(w io.Writer) *slog.Logger { return slog.New(slog.NewJSONHandler(w, nil)) }},
		{"text", func(w io.Writer) *slog.Logger { return slog.New(httplog.NewTextHandler(w, nil)) }},
		{"json", func(w io.Writer) *slog.Logger { return slog.New(httplog.NewJSONHandler(w, nil)) }},
	}
	for _, l := range logs {
		b.Run(l.name, func(b *testing.B) {
			out := logbuf.New(io.Discard, time.Second)
			b.Cleanup(func() { _ = out.Close() })
			h := chain(l.log(out))
			body := &bodyReader{}
			r, err := http.NewRequest(http.MethodPost, "http://127.0.0.1/responses", body)
			if err != nil {
				b.Fatal(err)
			}
			r.Header.Set("Content-Type", "application/json")
			w := &sinkWriter{header: http.Header{}}
			b.ReportAllocs()
			for b.Loop() {
				body.Reset(`{"input":"hello"}`)
				clear(w.header)
				h.ServeHTTP(w, r)
			}
			if w.code != 0 && w.code != http.StatusOK {
				b.Fatalf("status %d", w.code)
			}
		})
	}
}
