package tracing

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/harnest/harnest/runtime"
)

// TurnTracer is the runtime.TurnTracer of t: one span per turn, a child of
// the request that started it. Nil when t is nil (turns are not traced).
func (t *Tracing) TurnTracer() runtime.TurnTracer {
	if t == nil {
		return nil
	}
	return turnTracer{tracer: t.tracer}
}

// turnTracer makes the "invoke_agent harnest" span of each turn.
type turnTracer struct {
	tracer trace.Tracer
}

// StartTurn opens the turn's span with its IDs and transport; the end
// function adds the final status, the error code and the token usage.
func (tt turnTracer) StartTurn(ctx context.Context, info runtime.TurnInfo) (context.Context, func(runtime.TurnReport)) {
	attrs := []attribute.KeyValue{
		attribute.String("gen_ai.operation.name", "invoke_agent"),
		attribute.String("gen_ai.agent.name", "harnest"),
		attribute.String("gen_ai.conversation.id", info.SessionID),
		attribute.String("harnest.response.id", info.ResponseID),
	}
	if info.Transport != "" {
		attrs = append(attrs, attribute.String("harnest.transport", info.Transport))
	}
	ctx, span := tt.tracer.Start(ctx, "invoke_agent harnest", trace.WithAttributes(attrs...))
	return ctx, func(report runtime.TurnReport) {
		span.SetAttributes(attribute.String("harnest.turn.status", report.Status))
		if report.Usage.InputTokens > 0 || report.Usage.OutputTokens > 0 {
			span.SetAttributes(
				attribute.Int("gen_ai.usage.input_tokens", report.Usage.InputTokens),
				attribute.Int("gen_ai.usage.output_tokens", report.Usage.OutputTokens))
		}
		if report.Code != "" {
			span.SetAttributes(attribute.String("error.type", report.Code))
			span.SetStatus(codes.Error, report.Code)
		}
		span.End()
	}
}
