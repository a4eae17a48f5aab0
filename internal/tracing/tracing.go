package tracing

import (
	"context"
	"fmt"
	"os"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// instrumentation names the tracer of every span this package makes.
const instrumentation = "github.com/harnest/harnest"

// defaultServiceName is service.name unless OTEL_SERVICE_NAME (or
// OTEL_RESOURCE_ATTRIBUTES) says otherwise.
const defaultServiceName = "harnest"

// Tracing is one replica's tracer provider and its OTLP/HTTP exporter. A
// nil *Tracing (no endpoint configured) traces nothing: its methods return
// the handler they were given, a nil turn tracer, or nil.
type Tracing struct {
	provider *sdktrace.TracerProvider
	tracer   trace.Tracer
}

// Enabled reports whether the environment asks for traces: an OTLP
// endpoint is set and the SDK is not disabled (OTEL_SDK_DISABLED=true or
// OTEL_TRACES_EXPORTER=none turn it off).
func Enabled() bool {
	if strings.EqualFold(os.Getenv("OTEL_SDK_DISABLED"), "true") ||
		strings.EqualFold(os.Getenv("OTEL_TRACES_EXPORTER"), "none") {
		return false
	}
	return os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
}

// FromEnv sets tracing up from the standard OpenTelemetry environment
// variables (endpoint, headers, compression, timeout, sampler, batch
// delays, service name and resource attributes). It returns nil, nil when
// Enabled is false. Shutdown flushes and stops it.
func FromEnv(ctx context.Context) (*Tracing, error) {
	if !Enabled() {
		return nil, nil
	}
	exporter, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, fmt.Errorf("tracing: cannot set up the OTLP/HTTP exporter (check OTEL_EXPORTER_OTLP_ENDPOINT and the other OTEL_EXPORTER_OTLP_* variables): %w", err)
	}
	res, err := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", defaultServiceName)),
		resource.WithFromEnv(), // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win
		resource.WithTelemetrySDK(),
	)
	if err != nil {
		_ = exporter.Shutdown(ctx)
		return nil, fmt.Errorf("tracing: cannot read the resource attributes (check OTEL_RESOURCE_ATTRIBUTES): %w", err)
	}
	provider := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exporter), sdktrace.WithResource(res))
	return &Tracing{provider: provider, tracer: provider.Tracer(instrumentation)}, nil
}

// Shutdown exports the spans not yet sent and stops the exporter, within
// ctx. Nil-safe.
func (t *Tracing) Shutdown(ctx context.Context) error {
	if t == nil {
		return nil
	}
	if err := t.provider.Shutdown(ctx); err != nil {
		return fmt.Errorf("tracing: flushing the last spans: %w", err)
	}
	return nil
}

// ForceFlush exports the spans ended so far, within ctx. Nil-safe.
func (t *Tracing) ForceFlush(ctx context.Context) error {
	if t == nil {
		return nil
	}
	return t.provider.ForceFlush(ctx)
}

// tracerOf is the tracer of ctx's span, so that spans of the backend (which
// has no *Tracing) join the provider of the turn they belong to. With no
// span in ctx it is a no-op tracer.
func tracerOf(ctx context.Context) trace.Tracer {
	return trace.SpanFromContext(ctx).TracerProvider().Tracer(instrumentation)
}
