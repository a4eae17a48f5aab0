package playground_test

import (
	"context"
	"strings"
	"testing"
	"time"

	evals "github.com/harnest/harnest/eval"
)

// The Evals view says when no run is kept, then shows the last run that
// harnest eval kept in the store: the totals against the threshold and a
// row per case with its first failure.
func TestEvalsView(t *testing.T) {
	srv := startServer(t, nil)
	tb := openTab(t, srv, "/")
	tb.click("button", "Evals")
	tb.waitFor("the empty state", `document.querySelector('#evals-status').textContent.includes('No eval run yet')`)

	rep := &evals.Report{Totals: evals.Totals{Agent: srv.Srv.Folder.Config.Metadata.Name, CasesFile: "examples/hello/evals.yaml", StartedAt: time.Now(),
		Total: 2, Passed: 1, Failed: 1, PassRate: 0.5, Threshold: 1, OK: false},
		Cases: []evals.CaseResult{
			{Name: "echoes a greeting", Passed: true, Turns: []evals.TurnResult{{}}},
			{Name: "says goodbye", Turns: []evals.TurnResult{{Checks: []evals.Check{{Kind: "contains", Detail: `the answer "Echo: hi" does not contain "bye"`}}}}},
		}}
	if err := evals.KeepLastRun(context.Background(), srv.Srv.Store, rep); err != nil {
		t.Fatal(err)
	}
	tb.click("button", "Refresh eval run")
	tb.waitFor("the run's rows", `document.querySelectorAll('#eval-rows tr').length === 2`)
	summary := eval[string](tb, `document.querySelector('#evals-summary').textContent`)
	if !strings.Contains(summary, "1 passed, 1 failed of 2 cases: pass rate 50.0% (threshold 100.0%): FAILED") {
		t.Errorf("summary: %q", summary)
	}
	failed := eval[string](tb, `document.querySelectorAll('#eval-rows tr')[1].textContent`)
	if !strings.Contains(failed, "says goodbye") || !strings.Contains(failed, "FAIL") || !strings.Contains(failed, `does not contain "bye"`) {
		t.Errorf("failed row: %q", failed)
	}
}
