package runtime

import "context"

// Readiness failures: the codes and sentences GET /readyz answers with.
var (
	errNotReadyStore    = &Error{Kind: ErrUnavailable, Code: "store_unavailable", Detail: "The state store does not answer"}
	errNotReadyShutdown = &Error{Kind: ErrUnavailable, Code: CodeShutdown, Detail: "The server is shutting down"}
)

// Ready reports whether this replica should receive traffic: nil when the
// service is not shutting down and the store answers a PING within the
// store's timeout; otherwise an unavailable *Error whose code says which
// (CodeShutdown or "store_unavailable"). Liveness is another matter: a
// replica whose Redis is down is alive and recovers by itself once Redis
// answers again.
func (s *Service) Ready(ctx context.Context) error {
	s.mu.Lock()
	closing := s.closing
	s.mu.Unlock()
	if closing {
		return errNotReadyShutdown
	}
	if err := s.store.Ping(ctx); err != nil {
		if ctx.Err() == nil { // not a probe that gave up
			s.log.Warn("not ready: the store does not answer", "err", err)
		}
		return errNotReadyStore
	}
	return nil
}
