package server_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/harnest/harnest/internal/tracing/otlpreceiver"
	"github.com/harnest/harnest/server/servertest"
)

// BenchmarkMiddlewareChain serves requests through a whole replica's
// handler (the request log, metrics, CORS, the body guard, auth, rate
// limits and the mux; and traces in the traced variant, exported to a
// loopback receiver), on a route without wildcards (GET /healthz) and on
// one with a wildcard that the store answers at once (a missing session):
// what the middleware chain costs a request, route matching included.
func BenchmarkMiddlewareChain(b *testing.B) {
	for _, traced := range []bool{false, true} {
		name := "metrics"
		if traced {
			name = "metrics+traces"
		}
		b.Run(name, func(b *testing.B) {
			if traced {
				b.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", otlpreceiver.Start(b).URL)
			}
			ts := servertest.Start(b, "", servertest.Setup{})
			for _, path := range []string{"/healthz", "/sessions/missing"} {
				b.Run(path, func(b *testing.B) {
					req := httptest.NewRequest(http.MethodGet, path, nil)
					b.ReportAllocs()
					for b.Loop() {
						w := httptest.NewRecorder()
						ts.Srv.Handler.ServeHTTP(w, req)
						if w.Code != http.StatusOK && w.Code != http.StatusNotFound {
							b.Fatalf("GET %s: status %d", path, w.Code)
						}
					}
				})
			}
		})
	}
}
