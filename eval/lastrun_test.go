package eval_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/eval"
	"github.com/harnest/harnest/server/servertest"
)

// A run kept in the store is what GET /evals/last answers, on either
// store; before any run it answers 404 eval_run_not_found.
func TestLastRunRoute(t *testing.T) {
	servertest.EachStore(t, servertest.Setup{Config: func(c *config.Config) { c.Spec.Backend.Echo = &config.EchoBackend{} }}, func(t *testing.T, ts *servertest.Server) {
		r := ts.Get("/evals/last")
		servertest.MustStatus(t, r, 404)
		if code := r.JSON(t)["code"]; code != "eval_run_not_found" {
			t.Fatalf("code %v", code)
		}
		f, err := eval.Parse([]byte("cases: [{name: one, turns: [{input: a}]}, {name: two, turns: [{input: b, expect: {equals: c}}]}]"), t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		runner := eval.Runner{Service: ts.Srv.Service, Agent: ts.Srv.Folder.Config.Metadata.Name}
		rep := runner.Run(context.Background(), f, 0.5)
		if err := eval.KeepLastRun(context.Background(), ts.Srv.Store, rep); err != nil {
			t.Fatal(err)
		}
		r = ts.Get("/evals/last")
		servertest.MustStatus(t, r, 200)
		var got eval.Summary
		if err := json.Unmarshal(r.Body, &got); err != nil {
			t.Fatal(err)
		}
		if got.Agent != "hello" || got.Total != 2 || got.Passed != 1 || !got.OK || len(got.Cases) != 2 ||
			got.Cases[1].Failure != `equals: the answer is "Echo: b", want "c"` || got.Cases[0].Turns != 1 {
			t.Fatalf("last run: %s", r.Body)
		}
	})
}

// A summary too large for the store keeps its first cases and counts the
// rest as omitted.
func TestSummaryWithinBound(t *testing.T) {
	var rep eval.Report
	for i := 0; i < 3000; i++ {
		rep.Cases = append(rep.Cases, eval.CaseResult{Name: "a case with a long name that repeats " + string(rune('a'+i%26)), Error: string(make([]byte, 300))})
	}
	ts := servertest.Start(t, "", servertest.Setup{})
	rep.Agent = "hello"
	if err := eval.KeepLastRun(context.Background(), ts.Srv.Store, &rep); err != nil {
		t.Fatal(err)
	}
	var got eval.Summary
	if err := json.Unmarshal(ts.Get("/evals/last").Body, &got); err != nil {
		t.Fatal(err)
	}
	if got.Omitted == 0 || got.Omitted+len(got.Cases) != 3000 {
		t.Fatalf("kept %d, omitted %d", len(got.Cases), got.Omitted)
	}
}
