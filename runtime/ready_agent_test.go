package runtime

import (
	"context"
	"errors"
	"testing"
)

// readyAgent is an agent that reports readiness.
type readyAgent struct {
	AgentFunc
	err error
}

func (a *readyAgent) Ready(context.Context) error { return a.err }

func TestReadyAsksTheAgent(t *testing.T) {
	agent := &readyAgent{AgentFunc: func(context.Context, *Turn, Emit) error { return nil }}
	s := newTestService(t, agent, nil)
	if err := s.Ready(context.Background()); err != nil {
		t.Fatalf("ready agent: %v", err)
	}
	agent.err = errors.New("mcp server files does not answer")
	err := s.Ready(context.Background())
	var e *Error
	if !errors.As(err, &e) || e.Code != "agent_unavailable" || !errors.Is(err, ErrUnavailable) {
		t.Fatalf("not ready agent: %v", err)
	}
}
