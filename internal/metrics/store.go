package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/harnest/harnest/store"
)

// storeMetrics count the commands the store sends (store.CommandObserver):
// the Redis store reports them through a go-redis hook; the in-process
// store sends none and reports none.
type storeMetrics struct {
	commands   *prometheus.CounterVec
	errors     *prometheus.CounterVec
	roundTrips *prometheus.HistogramVec
}

// storeBuckets are the round-trip histogram's buckets, in seconds: a
// healthy Redis answers well under a millisecond, a failing one at the
// store's timeout (2 s by default).
var storeBuckets = []float64{0.0002, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5}

func newStoreMetrics() storeMetrics {
	return storeMetrics{
		commands: counterVec("harnest_store_commands_total",
			"Commands sent to the store (Redis), by store and command or script name.", "store", "command"),
		errors: counterVec("harnest_store_errors_total",
			"Store commands that failed (not a missing key), by store and command or script name.", "store", "command"),
		roundTrips: histogramVec("harnest_store_round_trip_duration_seconds",
			"Time of each round trip to the store, by store and command (\"pipeline\" for several at once).", storeBuckets, "store", "command"),
	}
}

func (s storeMetrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{s.commands, s.errors, s.roundTrips}
}

// StoreObserver is what the store tells about its commands
// (store.ObserveCommands); nil when m is nil.
func (m *Metrics) StoreObserver() store.CommandObserver {
	if m == nil {
		return nil
	}
	return storeObserver{m.store}
}

// storeObserver counts store commands, their failures and round trips.
type storeObserver struct{ s storeMetrics }

func (o storeObserver) StoreCommand(st, command string, err error) {
	o.s.commands.WithLabelValues(st, command).Inc()
	if err != nil {
		o.s.errors.WithLabelValues(st, command).Inc()
	}
}

func (o storeObserver) StoreRoundTrip(st, command string, took time.Duration) {
	o.s.roundTrips.WithLabelValues(st, command).Observe(took.Seconds())
}
