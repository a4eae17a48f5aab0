package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/eval"
	"github.com/harnest/harnest/server"
)

// evalUsage is printed for "harnest eval -h" and a wrong call.
const evalUsage = `Usage: harnest eval <folder> [cases] [flags]

Runs the conversations of a cases file (default <folder>/evals.yaml) against
the agent in folder, in process on the embedded store, checks every answer
and tool trajectory, prints a table and exits 1 when the pass rate is below
--threshold (2 when it cannot run: a wrong call, an invalid folder or cases
file, an agent or store that does not start).

Flags:
`

// evalFlags are harnest eval's options.
type evalFlags struct {
	jsonOut, junitOut string
	threshold         float64
	redisURL          string
	timeout           flagDuration
	logLevel          string
	quiet             bool
}

// evalCommand is "harnest eval".
func evalCommand(args []string) int {
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	var o evalFlags
	fs.StringVar(&o.jsonOut, "json", "", "write the report as JSON to this file")
	fs.StringVar(&o.junitOut, "junit", "", "write the report as JUnit XML to this file")
	fs.Float64Var(&o.threshold, "threshold", 1.0, "the least pass rate (0 to 1) that passes; below it harnest eval exits 1")
	fs.StringVar(&o.redisURL, "redis-url", "", "run on this Redis instead of the embedded store, and keep the run's summary there for the playground")
	o.timeout = flagDuration(eval.DefaultTurnTimeout)
	fs.Var(&o.timeout, "turn-timeout", "how long one turn may take, its approvals answered")
	fs.StringVar(&o.logLevel, "log-level", "warn", "the agent's log level: debug, info, warn or error")
	fs.BoolVar(&o.quiet, "quiet", false, "print only the table, not a line per case as it ends")
	fs.Usage = func() {
		fmt.Fprint(os.Stderr, evalUsage)
		fs.PrintDefaults()
	}
	positional, err := parsePositionals(fs, args, 2)
	if err != nil {
		if err != flag.ErrHelp {
			fmt.Fprintln(os.Stderr, "harnest eval:", err)
			fs.Usage()
		}
		return 2
	}
	if len(positional) == 0 {
		fmt.Fprintln(os.Stderr, "harnest eval: name the agent folder")
		fs.Usage()
		return 2
	}
	if o.threshold < 0 || o.threshold > 1 {
		fmt.Fprintf(os.Stderr, "harnest eval: --threshold must be between 0 and 1, got %v\n", o.threshold)
		return 2
	}
	folder := positional[0]
	casesPath := filepath.Join(folder, "evals.yaml")
	if len(positional) == 2 {
		casesPath = positional[1]
	}
	return runEval(folder, casesPath, o)
}

// runEval loads the folder and the cases, runs them and writes the report.
func runEval(folder, casesPath string, o evalFlags) int {
	f, err := config.Load(folder)
	if err != nil {
		fmt.Fprintf(os.Stderr, "harnest eval: %s is not a valid agent folder:\n%v\nRun \"harnest check %s\" to list every problem.\n", folder, err, folder)
		return 2
	}
	cases, err := eval.Load(casesPath)
	if err != nil {
		fmt.Fprintln(os.Stderr, "harnest eval:", err)
		return 2
	}
	log, err := newLogger(os.Stderr, "text", o.logLevel)
	if err != nil {
		fmt.Fprintln(os.Stderr, "harnest eval:", err)
		return 2
	}
	if o.redisURL == "" {
		f.Config.Store.Redis.URL = "" // the embedded store, whatever the folder says
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv, err := server.New(ctx, f, server.Options{RedisURL: o.redisURL, Logger: log})
	if err != nil {
		fmt.Fprintln(os.Stderr, "harnest eval: the agent did not start:", err)
		return 2
	}
	defer srv.Close()
	runner := eval.Runner{Service: srv.Service, Agent: f.Config.Metadata.Name, Judge: judgeFor(cases, f.Config),
		TurnTimeout: o.timeout.d()}
	if !o.quiet {
		runner.Progress = os.Stderr
	}
	report := runner.Run(ctx, cases, o.threshold)
	if err := writeEvalOutputs(report, o); err != nil {
		fmt.Fprintln(os.Stderr, "harnest eval:", err)
		return 2
	}
	if o.redisURL != "" {
		keepLastRun(ctx, srv, report, log)
	}
	if !report.OK {
		return 1
	}
	return 0
}

// judgeFor is the judge of the cases file, else the agent's own model
// backend; nil when neither names one (a rubric then fails its check).
func judgeFor(cases *eval.File, cfg config.Config) eval.Judge {
	if cases.Judge != nil {
		return &eval.ChatJudge{Endpoint: *cases.Judge}
	}
	if m := cfg.Spec.Backend.Model; m != nil {
		return &eval.ChatJudge{Endpoint: eval.JudgeEndpoint{BaseURL: m.BaseURL, Model: m.Model, APIKey: m.APIKey}}
	}
	return nil
}

// writeEvalOutputs prints the table and writes the JSON and JUnit files
// asked for.
func writeEvalOutputs(report *eval.Report, o evalFlags) error {
	if err := report.WriteTable(os.Stdout); err != nil {
		return err
	}
	if o.jsonOut != "" {
		if err := writeFileWith(o.jsonOut, func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(report)
		}); err != nil {
			return err
		}
	}
	if o.junitOut != "" {
		return writeFileWith(o.junitOut, report.WriteJUnit)
	}
	return nil
}

// writeFileWith creates path and fills it with write.
func writeFileWith(path string, write func(io.Writer) error) error {
	fh, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("cannot write the report: %w", err)
	}
	if err := write(fh); err != nil {
		fh.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return fh.Close()
}

// keepLastRun stores the run's summary for the playground (GET
// /evals/last); a failure is logged, not fatal: the report is written.
func keepLastRun(ctx context.Context, srv *server.Server, report *eval.Report, log *slog.Logger) {
	if err := eval.KeepLastRun(ctx, srv.EvalRuns(), report); err != nil {
		log.Warn("cannot keep the run's summary in the store for the playground", "err", err)
	}
}
