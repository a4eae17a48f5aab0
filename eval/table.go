package eval

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// WriteTable prints the report for a terminal: one row per case (its
// result, turns, time and first failure), then the totals.
func (r *Report) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CASE\tRESULT\tTURNS\tTIME\tDETAIL")
	for _, c := range r.Cases {
		result := "pass"
		if !c.Passed {
			result = "FAIL"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", oneLine(c.Name, 40), result, len(c.Turns),
			time.Duration(c.Duration).Round(time.Millisecond), oneLine(c.firstFailure(), 100))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	verdict := "ok"
	if !r.OK {
		verdict = "FAILED"
	}
	_, err := fmt.Fprintf(w, "\n%d passed, %d failed of %d cases: pass rate %.1f%% (threshold %.1f%%): %s\n",
		r.Passed, r.Failed, r.Total, 100*r.PassRate, 100*r.Threshold, verdict)
	return err
}

// oneLine is s on one line, cut to n runes.
func oneLine(s string, n int) string {
	return shorten(strings.Join(strings.Fields(s), " "), n)
}
