// Package tracing exports OpenTelemetry traces of what a harnest replica
// does: one server span per HTTP request (named by its route pattern), one
// span per turn, and one per model call and per tool call with the GenAI
// semantic conventions (gen_ai.operation.name, gen_ai.request.model,
// gen_ai.usage.input_tokens, ...).
//
// Traces are on only when the standard OTEL_EXPORTER_OTLP_ENDPOINT (or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set: FromEnv then exports them
// over OTLP/HTTP; otherwise it returns a nil *Tracing, which traces
// nothing. A W3C traceparent header on a request is continued, and the
// trace is passed on to exec programs (TRACEPARENT), exec workers (the turn
// line's traceparent) and outbound HTTP to model endpoints and remote A2A
// agents (Inject, Transport).
//
// No attribute ever holds message text, tool arguments or outputs, tokens
// or secrets: spans carry names, IDs, counts, statuses and codes only.
package tracing
