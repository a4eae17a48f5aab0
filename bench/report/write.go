package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

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

func ttfeP50s(results []result, scenario, server string) []float64 {
	var v []float64
	for _, r := range results {
		if r.scenario == scenario && r.server == server && r.SSE != nil {
			v = append(v, r.SSE.TTFEP50)
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

// write prints every run, the comparisons and the TTFE targets.
func write(w io.Writer, results []result, targets []ratioTarget, ttfes []ttfeTarget) {
	writeRuns(w, results)
	writeComparisons(w, results, comparisons(results, targets))
	writeTTFE(w, results, ttfes)
	for _, r := range results {
		if r.Requests > 0 && float64(r.Failures) > 0.01*float64(r.Requests) {
			fmt.Fprintf(w, "WARNING: %s|%s: %d of %d requests failed: %s\n",
				r.scenario, r.server, r.Failures, r.Requests, r.FirstError)
		}
	}
}

func writeRuns(w io.Writer, results []result) {
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
}

// comparison is one server measured against a reference in a scenario;
// Min is 0 when there is no target.
type comparison struct {
	ratioTarget
}

// comparisons lists the explicit targets, then, for every scenario with a
// "baseline" run, each other server not already compared in it.
func comparisons(results []result, targets []ratioTarget) []comparison {
	var out []comparison
	covered := map[string]bool{}
	for _, t := range targets {
		out = append(out, comparison{t})
		covered[t.Scenario+"|"+t.Server] = true
	}
	for _, sc := range ordered(results, func(r result) string { return r.scenario }) {
		if len(rates(results, sc, "baseline")) == 0 {
			continue
		}
		for _, s := range ordered(results, func(r result) string { return r.server }) {
			if s != "baseline" && !covered[sc+"|"+s] && len(rates(results, sc, s)) > 0 {
				out = append(out, comparison{ratioTarget{Scenario: sc, Server: s, Reference: "baseline"}})
			}
		}
	}
	return out
}

func writeComparisons(w io.Writer, results []result, cmps []comparison) {
	t := newTargetTable("scenario\tserver\tmean req/s\treference\treference mean req/s\tratio\tratio per round\ttarget")
	for _, c := range cmps {
		v, ref := rates(results, c.Scenario, c.Server), rates(results, c.Scenario, c.Reference)
		if len(v) == 0 && len(ref) == 0 {
			continue
		}
		ratio, verdict := "-", ""
		var perRound []string
		if mean(ref) > 0 && len(v) > 0 {
			rt := mean(v) / mean(ref)
			ratio = fmt.Sprintf("%.2f", rt)
			for i := range min(len(v), len(ref)) {
				if ref[i] > 0 {
					perRound = append(perRound, fmt.Sprintf("%.2f", v[i]/ref[i]))
				}
			}
			if c.Min > 0 {
				verdict = fmt.Sprintf("misses (< %.2f)", c.Min)
				if rt >= c.Min {
					verdict = fmt.Sprintf("meets (>= %.2f)", c.Min)
				}
			}
		} else if c.Min > 0 {
			verdict = fmt.Sprintf("not measured (>= %.2f)", c.Min)
		}
		t.row("%s\t%s\t%.0f\t%s\t%.0f\t%s\t%s\t%s\n",
			c.Scenario, c.Server, mean(v), c.Reference, mean(ref), ratio, strings.Join(perRound, " "), verdict)
	}
	t.writeTo(w)
}

func writeTTFE(w io.Writer, results []result, ttfes []ttfeTarget) {
	t := newTargetTable("scenario\tserver\tTTFE p50 ms (mean)\tper round\ttarget")
	for _, target := range ttfes {
		v := ttfeP50s(results, target.Scenario, target.Server)
		if len(v) == 0 {
			continue
		}
		var perRound []string
		for _, x := range v {
			perRound = append(perRound, fmt.Sprintf("%.3f", x))
		}
		verdict := fmt.Sprintf("misses (> %.3g ms)", target.MaxMs)
		if mean(v) <= target.MaxMs {
			verdict = fmt.Sprintf("meets (<= %.3g ms)", target.MaxMs)
		}
		t.row("%s\t%s\t%.3f\t%s\t%s\n", target.Scenario, target.Server, mean(v), strings.Join(perRound, " "), verdict)
	}
	t.writeTo(w)
}

// targetTable is a tab-aligned table of targets, written (after a blank
// line) only when it has a row.
type targetTable struct {
	buf  bytes.Buffer
	tw   *tabwriter.Writer
	rows int
}

func newTargetTable(header string) *targetTable {
	t := &targetTable{}
	t.tw = tabwriter.NewWriter(&t.buf, 0, 0, 2, ' ', 0)
	fmt.Fprintln(t.tw, header)
	return t
}

func (t *targetTable) row(format string, args ...any) {
	t.rows++
	fmt.Fprintf(t.tw, format, args...)
}

func (t *targetTable) writeTo(w io.Writer) {
	t.tw.Flush()
	if t.rows > 0 {
		fmt.Fprintln(w)
		_, _ = t.buf.WriteTo(w)
	}
}
