package metrics

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/auth"
	"github.com/harnest/harnest/internal/httpapi"
	"github.com/harnest/harnest/runtime"
)

// Path is where the metrics are served.
const Path = "/metrics"

// ForConfig builds the metrics of a replica served with cfg, or returns
// nil when server.metrics is false.
func ForConfig(cfg config.Config) *Metrics {
	if !config.Enabled(cfg.Server.Metrics) {
		return nil
	}
	return New(Options{Backend: BackendKind(cfg.Spec.Backend)})
}

// IsPublic reports whether r asks for the metrics and server.metricsPublic
// lets anyone read them: the auth middleware then lets it through.
func IsPublic(cfg config.Config, r *http.Request) bool {
	return cfg.Server.MetricsPublic && r.URL.Path == Path
}

// Sources are the parts of a replica whose current state the gauges read
// at each scrape. The counts of the doors come as functions, which the
// composition root (server) takes from the doors, so this package imports
// none of them.
type Sources struct {
	Service *runtime.Service
	// LiveSockets counts the /live WebSockets open now (nil when /live is
	// not served: 0).
	LiveSockets func() int
	// RelayPolls counts the outside agents' inbox long polls waiting now
	// in this process (nil: 0).
	RelayPolls func() int
	// IsOwner says who may read the metrics when auth is on (the relay's
	// owners); Public lets anyone.
	IsOwner func(userID string) bool
	Public  bool
}

// Mount registers the gauges that read src and serves GET /metrics on
// mux: to the owners only (others get 404, as for anything they may not
// use) unless src.Public. It does nothing when m is nil.
func (m *Metrics) Mount(mux *http.ServeMux, src Sources) {
	if m == nil {
		return
	}
	m.registry.MustRegister(
		gaugeFunc("harnest_responses_active", "Responses this replica holds: running, queued or waiting for an answer.",
			func() int { return src.Service.ActiveResponses() }),
		gaugeFunc("harnest_admission_queued", "Runs waiting for a run slot (server.http.maxConcurrentRequests).",
			func() int { return src.Service.QueuedRuns() }),
		gaugeFunc("harnest_live_sockets", "/live WebSockets open now.", orZero(src.LiveSockets)),
		gaugeFunc("harnest_relay_polls", "Outside agents' inbox long polls waiting now (in this process).", orZero(src.RelayPolls)),
	)
	scrape := promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{Registry: m.registry})
	mux.Handle("GET "+Path, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !src.Public && (src.IsOwner == nil || !src.IsOwner(auth.From(r.Context()).UserID)) {
			httpapi.Fail(w, http.StatusNotFound, "not_found", "Not found")
			return
		}
		scrape.ServeHTTP(w, r)
	}))
}

// orZero is count, or a count of 0 when there is none.
func orZero(count func() int) func() int {
	if count == nil {
		return func() int { return 0 }
	}
	return count
}
