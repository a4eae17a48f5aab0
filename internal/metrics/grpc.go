package metrics

import "github.com/prometheus/client_golang/prometheus"

// grpcMetrics count the gRPC calls of A2A's GRPC binding. They are served
// on the same port and pass through Middleware, which counts them here,
// by method and status code, instead of as HTTP requests.
type grpcMetrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

func newGRPCMetrics() grpcMetrics {
	return grpcMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "harnest_grpc_requests_total",
			Help: "gRPC calls answered, by full method and status code.",
		}, []string{"method", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "harnest_grpc_request_duration_seconds", Buckets: httpBuckets,
			Help: "Time from a gRPC call's arrival to the end of its answer (streams included), by full method.",
		}, []string{"method"}),
	}
}

func (g grpcMetrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{g.requests, g.duration}
}
