package main

import (
	"fmt"
	"strconv"
	"strings"
)

// splitTarget splits a target "SCENARIO:SUBJECT<op>NUMBER": a scenario
// named, and a number above 0. ok is false when s is not one.
func splitTarget(s, op string) (scenario, subject string, v float64, ok bool) {
	scenario, rest, ok := strings.Cut(s, ":")
	if !ok || scenario == "" {
		return "", "", 0, false
	}
	subject, number, ok := strings.Cut(rest, op)
	if !ok {
		return "", "", 0, false
	}
	v, err := strconv.ParseFloat(number, 64)
	if err != nil || v <= 0 {
		return "", "", 0, false
	}
	return scenario, subject, v, true
}

// ratioTarget says that SERVER should reach at least Min times the req/s
// of REFERENCE in SCENARIO.
type ratioTarget struct {
	Scenario, Server, Reference string
	Min                         float64
}

// parseRatioTarget reads "SCENARIO:SERVER/REFERENCE>=RATIO".
func parseRatioTarget(s string) (ratioTarget, error) {
	bad := fmt.Errorf("target %q: want SCENARIO:SERVER/REFERENCE>=RATIO, e.g. json:harnest-embedded/baseline>=0.5", s)
	scenario, pair, v, ok := splitTarget(s, ">=")
	if !ok {
		return ratioTarget{}, bad
	}
	server, reference, ok := strings.Cut(pair, "/")
	if !ok || server == "" || reference == "" {
		return ratioTarget{}, bad
	}
	return ratioTarget{Scenario: scenario, Server: server, Reference: reference, Min: v}, nil
}

// ttfeTarget says that SERVER's time to first event (mean p50 over the
// rounds) in SCENARIO should be at most MaxMs.
type ttfeTarget struct {
	Scenario, Server string
	MaxMs            float64
}

// parseTTFETarget reads "SCENARIO:SERVER<=MS".
func parseTTFETarget(s string) (ttfeTarget, error) {
	bad := fmt.Errorf("ttfe target %q: want SCENARIO:SERVER<=MS, e.g. sse20-c8:harnest<=1", s)
	scenario, server, v, ok := splitTarget(s, "<=")
	if !ok || server == "" {
		return ttfeTarget{}, bad
	}
	return ttfeTarget{Scenario: scenario, Server: server, MaxMs: v}, nil
}
