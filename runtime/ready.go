package runtime

import "context"

// Readiness failures: the codes and sentences GET /readyz answers with.
var (
	errNotReadyStore    = &Error{Kind: ErrUnavailable, Code: "store_unavailable", Detail: "The state store does not answer"}
	errNotReadyShutdown = &Error{Kind: ErrUnavailable, Code: CodeShutdown, Detail: "The server is shutting down"}
	errNotReadyAgent    = &Error{Kind: ErrUnavailable, Code: "agent_unavailable", Detail: "The agent cannot serve yet: a server it needs does not answer (see the server log)"}
)

// ReadyReporter is an agent that can say whether it can serve: a model
// agent whose MCP servers do not answer is not ready. Service.Ready asks
// it after the store.
type ReadyReporter interface {
	Ready(ctx context.Context) error
}

// Ready reports whether this replica should receive traffic: nil when the
// service is not shutting down, the store answers a PING within the
// store's timeout and the agent, when it is a ReadyReporter, is ready;
// otherwise an unavailable *Error whose code says which (CodeShutdown,
// "store_unavailable" or "agent_unavailable"). Liveness is another matter: a
// replica whose Redis is down is alive and recovers by itself once Redis
// answers again.
func (s *Service) Ready(ctx context.Context) error {
	s.mu.Lock()
	closing := s.closing || s.draining
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
	if rr, ok := s.agent.(ReadyReporter); ok {
		if err := rr.Ready(ctx); err != nil {
			if ctx.Err() == nil {
				s.log.Warn("not ready: the agent cannot serve", "err", err)
			}
			return errNotReadyAgent
		}
	}
	return nil
}
