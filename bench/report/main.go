// Command report turns the JSON lines written by loadclient -json into the
// benchmark table. Each result's label is "SCENARIO|SERVER"; within a
// scenario, every server other than "baseline" is compared with "baseline"
// (mean req/s over the rounds, and the ratio per round).
//
//	report [-budget-scenario json] [-budget 0.5] results.jsonl
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
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

// ordered keeps first-seen order of keys.
func ordered(results []result, key func(result) string) []string {
	seen := map[string]bool{}
	var keys []string
	for _, r := range results {
		k := key(r)
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	return keys
}

func rates(results []result, scenario, server string) []float64 {
	var v []float64
	for _, r := range results {
		if r.scenario == scenario && r.server == server {
			v = append(v, r.ReqPerSec)
		}
	}
	return v
}

func mean(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

func write(w io.Writer, results []result, budgetScenario string, budget float64) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "scenario\tserver\treq/s\tp50 ms\tp90 ms\tp99 ms\tmax ms\tfailures\tevents/s\tTTFE p50\tTTFE p99\t")
	for _, r := range results {
		ev, t50, t99 := "-", "-", "-"
		if r.SSE != nil {
			ev = fmt.Sprintf("%.0f", r.SSE.EventsPerSec)
			t50 = fmt.Sprintf("%.3f", r.SSE.TTFEP50)
			t99 = fmt.Sprintf("%.3f", r.SSE.TTFEP99)
		}
		fmt.Fprintf(tw, "%s\t%s\t%.0f\t%.3f\t%.3f\t%.3f\t%.3f\t%d/%d\t%s\t%s\t%s\t\n",
			r.scenario, r.server, r.ReqPerSec, r.LatencyMs.P50, r.LatencyMs.P90, r.LatencyMs.P99, r.LatencyMs.Max,
			r.Failures, r.Requests, ev, t50, t99)
	}
	tw.Flush()

	var summary bytes.Buffer
	rows := 0
	tw = tabwriter.NewWriter(&summary, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "scenario\tserver\tmean req/s\tbaseline mean req/s\tratio\tratio per round\tbudget")
	for _, sc := range ordered(results, func(r result) string { return r.scenario }) {
		base := rates(results, sc, "baseline")
		var servers []string
		for _, s := range ordered(results, func(r result) string { return r.server }) {
			if s != "baseline" && len(rates(results, sc, s)) > 0 {
				servers = append(servers, s)
			}
		}
		for _, s := range servers {
			v := rates(results, sc, s)
			ratio := "-"
			var perRound []string
			verdict := ""
			if mean(base) > 0 {
				rt := mean(v) / mean(base)
				ratio = fmt.Sprintf("%.2f", rt)
				for i := range min(len(v), len(base)) {
					perRound = append(perRound, fmt.Sprintf("%.2f", v[i]/base[i]))
				}
				if sc == budgetScenario {
					verdict = fmt.Sprintf("FAIL (< %.2f)", budget)
					if rt >= budget {
						verdict = fmt.Sprintf("PASS (>= %.2f)", budget)
					}
				}
			}
			rows++
			fmt.Fprintf(tw, "%s\t%s\t%.0f\t%.0f\t%s\t%s\t%s\n",
				sc, s, mean(v), mean(base), ratio, strings.Join(perRound, " "), verdict)
		}
	}
	tw.Flush()
	if rows > 0 {
		fmt.Fprintln(w)
		_, _ = summary.WriteTo(w)
	}

	for _, r := range results {
		if r.Requests > 0 && float64(r.Failures) > 0.01*float64(r.Requests) {
			fmt.Fprintf(w, "WARNING: %s|%s: %d of %d requests failed: %s\n",
				r.scenario, r.server, r.Failures, r.Requests, r.FirstError)
		}
	}
}

func main() {
	budgetScenario := flag.String("budget-scenario", "json", "scenario the budget applies to")
	budget := flag.Float64("budget", 0.5, "minimum ratio server/baseline for the budget scenario")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: report [flags] results.jsonl")
		os.Exit(2)
	}
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
	write(os.Stdout, results, *budgetScenario, *budget)
}
