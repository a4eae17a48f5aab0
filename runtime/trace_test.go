package runtime

import (
	"context"
	"sync"
	"testing"
)

// turnKey marks the context a recordingTracer returns.
type turnKey struct{}

// recordingTracer keeps what the service told it.
type recordingTracer struct {
	mu      sync.Mutex
	started []TurnInfo
	ended   []TurnReport
}

func (rt *recordingTracer) StartTurn(ctx context.Context, info TurnInfo) (context.Context, func(TurnReport)) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.started = append(rt.started, info)
	return context.WithValue(ctx, turnKey{}, info.ResponseID), func(r TurnReport) {
		rt.mu.Lock()
		defer rt.mu.Unlock()
		rt.ended = append(rt.ended, r)
	}
}

// The tracer opens each turn once, its context reaches the agent, and it
// hears how the turn ended.
func TestTurnTracerSeesEachTurn(t *testing.T) {
	tracer := &recordingTracer{}
	var agentSaw any
	agent := AgentFunc(func(ctx context.Context, turn *Turn, emit Emit) error {
		agentSaw = ctx.Value(turnKey{})
		return emit(Event{Type: EventTextDelta, Delta: "ok"})
	})
	s := newTestService(t, agent, func(o *Options) { o.Tracer = tracer })
	r, err := s.StartResponse(context.Background(), testUser, ResponseRequest{Input: "x", Transport: TransportJSON})
	if err != nil {
		t.Fatal(err)
	}
	if out := waitDone(t, r); out.Err != nil {
		t.Fatalf("outcome %+v", out)
	}
	tracer.mu.Lock()
	defer tracer.mu.Unlock()
	if len(tracer.started) != 1 || tracer.started[0] != (TurnInfo{ResponseID: r.ID, SessionID: r.SessionID, Transport: TransportJSON}) {
		t.Errorf("started %+v", tracer.started)
	}
	if agentSaw != r.ID {
		t.Errorf("the agent's context carries %v, want the tracer's context", agentSaw)
	}
	if len(tracer.ended) != 1 || tracer.ended[0].Status != StatusCompleted {
		t.Errorf("ended %+v", tracer.ended)
	}
}
