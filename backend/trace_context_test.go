package backend

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/runtime"
)

// tracedContext carries a sampled span of a known trace, as a traced turn's
// context does, and the traceparent that stands for it.
func tracedContext(t *testing.T) (context.Context, string) {
	t.Helper()
	traceID, _ := trace.TraceIDFromHex("4bf92f3577b34da6a3ce929d0e0e4736")
	spanID, _ := trace.SpanIDFromHex("00f067aa0ba902b7")
	sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: traceID, SpanID: spanID, TraceFlags: trace.FlagsSampled})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return trace.ContextWithSpanContext(ctx, sc), "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
}

// A turn-mode program gets the turn's trace as TRACEPARENT, and none when
// the turn is not traced.
func TestExecProgramGetsTraceParent(t *testing.T) {
	agent := newExec(t, config.ExecBackend{Command: shell(`printf 'tp=%s' "${TRACEPARENT-unset}"`)}, nil)
	ctx, want := tracedContext(t)
	var events []runtime.Event
	if err := agent.Run(ctx, &runtime.Turn{Input: "x"}, collect(&events)); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if got := textOf(events); got != "tp="+want {
		t.Errorf("traced turn: the program saw %q, want tp=%s", got, want)
	}
	events = nil
	if err := agent.Run(context.Background(), &runtime.Turn{Input: "x"}, collect(&events)); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if got := textOf(events); got != "tp=unset" {
		t.Errorf("untraced turn: the program saw %q, want no TRACEPARENT", got)
	}
}

// A worker's turn line carries the turn's trace as traceparent.
func TestWorkerTurnLineCarriesTraceParent(t *testing.T) {
	w := newFaultyWorkers(t, config.ExecBackend{}, nil)
	ctx, want := tracedContext(t)
	var events safeEvents
	if err := w.Run(ctx, &runtime.Turn{ResponseID: "resp_traced", Input: "echo"}, events.emit); err != nil {
		t.Fatalf("Run: %v", err)
	}
	var line map[string]any
	if err := json.Unmarshal([]byte(events.text()), &line); err != nil {
		t.Fatalf("the worker got %q: %v", events.text(), err)
	}
	if line["traceparent"] != want {
		t.Errorf("turn line traceparent = %v, want %s", line["traceparent"], want)
	}
}
