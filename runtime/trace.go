package runtime

import "context"

// TurnTracer opens a trace span for each turn, so that the runtime needs
// no tracing library (internal/tracing implements it). Like Observer it is
// never given a user, a session's content or any text of a turn.
type TurnTracer interface {
	// StartTurn is called once per response, before its agent runs, with
	// the context of the call that started it (which carries the caller's
	// trace). The context it returns is the response's: the agent's calls
	// are traced under the turn. end is called once, when the response is
	// over, with what Observer.TurnEnded is told.
	StartTurn(ctx context.Context, info TurnInfo) (traced context.Context, end func(TurnReport))
}

// TurnInfo is what a TurnTracer learns of a turn when it starts.
type TurnInfo struct {
	ResponseID string
	SessionID  string
	// Transport is ResponseRequest.Transport ("" when the caller set none).
	Transport string
}

// startTrace opens the turn's span with the service's TurnTracer, if any:
// r.ctx becomes the traced context and r.endTrace ends the span.
func (r *Response) startTrace(tracer TurnTracer) {
	r.endTrace = func(TurnReport) {}
	if tracer == nil {
		return
	}
	traced, end := tracer.StartTurn(r.ctx, TurnInfo{ResponseID: r.ID, SessionID: r.SessionID, Transport: r.watch.transport})
	if traced != nil && end != nil {
		r.ctx, r.endTrace = traced, end
	}
}
