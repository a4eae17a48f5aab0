// Package eval runs an agent's evaluation cases: conversations written in
// a cases file (YAML, see cases.go), each turn's answer checked (contains,
// a regular expression, equals, a JSON Schema for typed output, an
// optional judge model with a rubric) and each turn's tool trajectory
// checked (exact, in order or in any order, with argument matchers). The
// approvals and client tools a turn waits for are answered by the case.
//
// The runner drives the runtime directly (runtime.Service, in process),
// as every door does, so an eval needs no HTTP server; cmd/harnest's
// "harnest eval" builds the replica (server.New, on the embedded store)
// and hands its service here. The results are a Report: a table for a
// terminal (WriteTable), JSON (the Report itself) and JUnit XML
// (WriteJUnit) for a CI, and Passes says whether the pass rate reached
// the threshold. KeepLastRun keeps a run's Summary in the store (the
// EvalRuns slice; harnest eval --redis-url), and LastRunHandler serves it
// at GET /evals/last, which the playground's Evals view shows.
//
// The tool trajectory is read from the response's event log (its
// response.tool_call events, every segment of a turn that waited
// included), so an agent whose output policy hides tool activity shows
// none.
//
// Use:
//
//	cases, err := eval.Load("evals.yaml")           // every problem, with its field path
//	r := eval.Runner{Service: svc, Judge: judge}     // judge: nil unless a case has a rubric
//	report := r.Run(ctx, cases)
//	report.WriteTable(os.Stdout)
//	ok := report.Passes(1.0)
package eval
