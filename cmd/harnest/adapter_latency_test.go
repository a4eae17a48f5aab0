package main

import (
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"
)

// TestAdapterLatency measures a JSON turn through each framework adapter
// (fake models) beside the plain Node worker of examples/worker-node, on
// one server each, one turn at a time. It only logs the figures (never
// asserts a speed) and runs only with HARNEST_BENCH=1:
//
//	HARNEST_BENCH=1 go test -run TestAdapterLatency -v ./cmd/harnest
func TestAdapterLatency(t *testing.T) {
	if os.Getenv("HARNEST_BENCH") != "1" {
		t.Skip("a measurement, not a test: set HARNEST_BENCH=1")
	}
	needProgram(t, "node")
	const turns = 200
	for _, folder := range []string{"worker-node", "langgraph-js", "adk-js"} {
		h := startHarnest(t, filepath.Join("..", "..", "examples", folder), []string{"HARNEST_FAKE_MODEL=1"})
		for range 10 { // warm up the workers
			h.completeResponse(t, `{"input":"hello there"}`)
		}
		took := make([]time.Duration, 0, turns)
		for range turns {
			start := time.Now()
			h.completeResponse(t, `{"input":"hello there"}`)
			took = append(took, time.Since(start))
		}
		sort.Slice(took, func(i, j int) bool { return took[i] < took[j] })
		t.Logf("%-13s p50 %6.2f ms  p90 %6.2f ms  (%d turns)", folder,
			float64(took[turns/2].Microseconds())/1000, float64(took[turns*9/10].Microseconds())/1000, turns)
		h.mustStop(t)
	}
}
