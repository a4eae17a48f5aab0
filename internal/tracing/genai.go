package tracing

import (
	"context"
	"errors"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/harnest/harnest/runtime"
)

// ModelCall is the span of one model call (a Chat Completions request,
// its retries included). End it once with End.
type ModelCall struct {
	span trace.Span
}

// ModelCallResult is what a finished model call reports to its span:
// counts and names only, never text.
type ModelCallResult struct {
	Model        string // the model the endpoint answered with
	FinishReason string // stop, tool_calls, length, ...
	InputTokens  int
	OutputTokens int
	HasUsage     bool // the endpoint reported the token counts
}

// StartModelCall opens the span of a model call under ctx's span (a turn):
// "chat <model>", with gen_ai.operation.name chat, gen_ai.request.model
// and gen_ai.provider.name. Without a span in ctx it traces nothing.
func StartModelCall(ctx context.Context, model, provider string) (context.Context, *ModelCall) {
	ctx, span := startGenAI(ctx, "chat", model, trace.SpanKindClient,
		attribute.String("gen_ai.request.model", model),
		attribute.String("gen_ai.provider.name", provider))
	return ctx, &ModelCall{span: span}
}

// End records the call's result (when err is nil) or its failure, and
// ends the span.
func (c *ModelCall) End(res ModelCallResult, err error) {
	defer c.span.End()
	if err != nil {
		failed(c.span, err)
		return
	}
	if res.Model != "" {
		c.span.SetAttributes(attribute.String("gen_ai.response.model", res.Model))
	}
	if res.FinishReason != "" {
		c.span.SetAttributes(attribute.StringSlice("gen_ai.response.finish_reasons", []string{res.FinishReason}))
	}
	if res.HasUsage {
		c.span.SetAttributes(
			attribute.Int("gen_ai.usage.input_tokens", res.InputTokens),
			attribute.Int("gen_ai.usage.output_tokens", res.OutputTokens))
	}
}

// ToolCall is the span of one tool call the server runs. End it once with
// End.
type ToolCall struct {
	span trace.Span
}

// StartToolCall opens the span of a tool call under ctx's span:
// "execute_tool <name>", with gen_ai.operation.name execute_tool,
// gen_ai.tool.name and gen_ai.tool.call.id (the model's ID of the call).
// The arguments are never recorded.
func StartToolCall(ctx context.Context, name, callID string) (context.Context, *ToolCall) {
	ctx, span := startGenAI(ctx, "execute_tool", name, trace.SpanKindInternal,
		attribute.String("gen_ai.tool.name", name),
		attribute.String("gen_ai.tool.call.id", callID))
	return ctx, &ToolCall{span: span}
}

// End records how the call went — failed to run (err), answered with an
// error result (isError), or fine — and ends the span. The output is never
// recorded.
func (c *ToolCall) End(isError bool, err error) {
	defer c.span.End()
	switch {
	case err != nil:
		failed(c.span, err)
	case isError:
		c.span.SetAttributes(attribute.String("error.type", "tool_error"))
		c.span.SetStatus(codes.Error, "tool_error")
	}
}

// startGenAI opens a GenAI span under ctx's span: "<operation> <name>",
// of kind, with gen_ai.operation.name and attrs.
func startGenAI(ctx context.Context, operation, name string, kind trace.SpanKind, attrs ...attribute.KeyValue) (context.Context, trace.Span) {
	attrs = append([]attribute.KeyValue{attribute.String("gen_ai.operation.name", operation)}, attrs...)
	return tracerOf(ctx).Start(ctx, operation+" "+name, trace.WithSpanKind(kind), trace.WithAttributes(attrs...))
}

// failed marks span as failed with a stable code: the *runtime.Error's
// code, "cancelled" or "error". The error's text is not recorded: it may
// quote what a provider or a tool said.
func failed(span trace.Span, err error) {
	code := "error"
	var re *runtime.Error
	switch {
	case errors.As(err, &re) && re.Code != "":
		code = re.Code
	case errors.Is(err, context.Canceled):
		code = "cancelled"
	case errors.Is(err, context.DeadlineExceeded):
		code = "timed_out"
	}
	span.SetAttributes(attribute.String("error.type", code))
	span.SetStatus(codes.Error, code)
}
