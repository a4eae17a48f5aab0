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
		requests: counterVec("harnest_grpc_requests_total",
			"gRPC calls answered, by full method and status code.", "method", "code"),
		duration: histogramVec("harnest_grpc_request_duration_seconds",
			"Time from a gRPC call's arrival to the end of its answer (streams included), by full method.", httpBuckets, "method"),
	}
}

func (g grpcMetrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{g.requests, g.duration}
}
