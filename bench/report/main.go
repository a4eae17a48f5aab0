// Command report turns the JSON lines written by loadclient -json into the
// benchmark's tables. Each result's label is "SCENARIO|SERVER". It prints
// every run, then the comparisons: within a scenario, each server against
// its reference (mean req/s over the rounds, and the ratio per round),
// with the target when one is given. Targets are printed, never asserted:
// the exit status does not depend on them.
//
//	report [-target 'json:harnest-embedded/baseline>=0.5']... [-ttfe 'sse20-c8:harnest<=1']... results.jsonl
//
// Without a -target for it, every server of a scenario that has a
// "baseline" run is compared with that baseline.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

type result struct {
	Label      string  `json:"label"`
	Requests   int64   `json:"requests"`
	Failures   int64   `json:"failures"`
	FirstError string  `json:"firstError"`
	ReqPerSec  float64 `json:"reqPerSec"`
	LatencyMs  struct {
		P50, P90, P99, Max float64
	} `json:"latencyMs"`
	SSE *struct {
		EventsPerSec float64 `json:"eventsPerSec"`
		TTFEP50      float64 `json:"ttfeP50Ms"`
		TTFEP99      float64 `json:"ttfeP99Ms"`
	} `json:"sse"`

	scenario, server string
}

func readResults(r io.Reader) ([]result, error) {
	var out []result
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var res result
		if err := json.Unmarshal([]byte(line), &res); err != nil {
			return nil, fmt.Errorf("bad result line %q: %v", line, err)
		}
		res.scenario, res.server, _ = strings.Cut(res.Label, "|")
		out = append(out, res)
	}
	return out, sc.Err()
}

// listFlag is a repeatable flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, " ") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// parseAll parses each flag value; a bad one ends the program (exit 2).
func parseAll[T any](values []string, parse func(string) (T, error)) []T {
	var out []T
	for _, s := range values {
		t, err := parse(s)
		if err != nil {
			fmt.Fprintln(os.Stderr, "report:", err)
			os.Exit(2)
		}
		out = append(out, t)
	}
	return out
}

func main() {
	var ratioFlags, ttfeFlags listFlag
	flag.Var(&ratioFlags, "target", "a ratio target SCENARIO:SERVER/REFERENCE>=RATIO (repeatable)")
	flag.Var(&ttfeFlags, "ttfe", "a time-to-first-event target SCENARIO:SERVER<=MS, on the mean TTFE p50 (repeatable)")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: report [-target SCENARIO:SERVER/REFERENCE>=RATIO]... [-ttfe SCENARIO:SERVER<=MS]... results.jsonl")
		os.Exit(2)
	}
	targets := parseAll(ratioFlags, parseRatioTarget)
	ttfes := parseAll(ttfeFlags, parseTTFETarget)
	f, err := os.Open(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(1)
	}
	defer f.Close()
	results, err := readResults(f)
	if err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(1)
	}
	write(os.Stdout, results, targets, ttfes)
}
