package router_test

import (
	"context"
	"errors"
	"testing"

	"github.com/harnest/harnest/backend"
	"github.com/harnest/harnest/backend/router"
	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/store/memstore"
)

// benchTurn runs one turn of agent, dropping its events.
func benchTurn(b *testing.B, agent runtime.Agent) {
	b.Helper()
	turn := &runtime.Turn{ResponseID: "resp", SessionID: "sess", UserID: "owner", Input: "hello",
		Content: []runtime.ContentInput{{Type: "text", Text: "hello"}}}
	emit := func(runtime.Event) error { return nil }
	b.ReportAllocs()
	for b.Loop() {
		if err := agent.Run(context.Background(), turn, emit); err != nil {
			b.Fatal(err)
		}
	}
}

// newBenchRouter is a router over the given harnesses on the in-process
// store.
func newBenchRouter(b *testing.B, harnesses map[string]runtime.Agent, choice string) *router.Router {
	b.Helper()
	st := memstore.New(memstore.Options{})
	b.Cleanup(func() { st.Close() })
	cfg := config.RouterBackend{Harnesses: map[string]config.RouterHarness{}, House: "house", Choice: choice,
		PlanDailyTurns: intp(1 << 30), Breaker: config.RouterBreaker{Failures: 1 << 20}}
	for name := range harnesses {
		cfg.Harnesses[name] = echo()
	}
	r, err := router.New(router.Options{Config: cfg, Harnesses: harnesses, Store: st})
	if err != nil {
		b.Fatal(err)
	}
	return r
}

// BenchmarkEchoAlone is the echo backend without the router: the
// baseline of BenchmarkRouterOverEcho.
func BenchmarkEchoAlone(b *testing.B) {
	benchTurn(b, backend.NewEcho(config.EchoBackend{}))
}

// BenchmarkRouterOverEcho is one routed turn answered by an echo
// harness: the difference to BenchmarkEchoAlone is the routing overhead
// (overrides, the daily count, the breaker, the receipt).
func BenchmarkRouterOverEcho(b *testing.B) {
	e := backend.NewEcho(config.EchoBackend{})
	benchTurn(b, newBenchRouter(b, map[string]runtime.Agent{"house": e, "quick": e}, "quick"))
}

// BenchmarkRouterFallbackAfterError is a routed turn whose harness fails
// at once and the house answers: the difference to
// BenchmarkRouterOverEcho is the added latency of a fallback.
func BenchmarkRouterFallbackAfterError(b *testing.B) {
	broken := runtime.AgentFunc(func(context.Context, *runtime.Turn, runtime.Emit) error { return errors.New("broken") })
	benchTurn(b, newBenchRouter(b, map[string]runtime.Agent{"house": backend.NewEcho(config.EchoBackend{}), "broken": broken}, "broken"))
}
