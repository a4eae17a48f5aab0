package eval

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/harnest/harnest/runtime"
)

// DefaultUser is the principal cases run as unless they name one.
const DefaultUser = "eval"

// DefaultTurnTimeout bounds one turn, its waits answered.
const DefaultTurnTimeout = 2 * time.Minute

// Runner runs cases against an agent's runtime, in process.
type Runner struct {
	Service *runtime.Service
	// Judge scores rubrics; nil fails every judge check with a sentence
	// saying that no judge model is configured.
	Judge Judge
	// Agent names the agent in the report.
	Agent string
	// TurnTimeout bounds one turn (default DefaultTurnTimeout).
	TurnTimeout time.Duration
	// Progress, when set, gets a line as each case ends.
	Progress io.Writer
}

// Run runs every case of f in order and reports, with threshold the least
// pass rate (0 to 1) for OK.
func (r *Runner) Run(ctx context.Context, f *File, threshold float64) *Report {
	rep := &Report{Totals: Totals{Agent: r.Agent, CasesFile: f.Path, StartedAt: time.Now().UTC()}, Cases: []CaseResult{}}
	for i := range f.Cases {
		res := r.runCase(ctx, &f.Cases[i])
		rep.Cases = append(rep.Cases, res)
		if r.Progress != nil {
			mark := "PASS"
			if !res.Passed {
				mark = "FAIL"
			}
			fmt.Fprintf(r.Progress, "%s  %s (%s)\n", mark, res.Name, time.Duration(res.Duration).Round(time.Millisecond))
		}
	}
	rep.Duration = Millis(time.Since(rep.StartedAt))
	rep.finish(threshold)
	return rep
}

// runCase runs one conversation in a new session; it stops at the first
// turn that cannot go on (not at a failed check: later turns still run).
func (r *Runner) runCase(ctx context.Context, c *Case) CaseResult {
	start := time.Now()
	res := CaseResult{Name: c.Name, Passed: true, Turns: []TurnResult{}}
	p := runtime.Principal{UserID: c.User}
	if p.UserID == "" {
		p.UserID = DefaultUser
	}
	var history []Exchange
	for i := range c.Turns {
		t := &c.Turns[i]
		tr, err := r.runTurn(ctx, p, c, t, res.Session)
		if tr.session != "" {
			res.Session = tr.session // the next turns continue the conversation
		}
		if err == nil {
			tr.Checks = append(tr.Checks, r.checks(ctx, t, &tr, history)...)
		} else {
			res.Error = fmt.Sprintf("turn %d: %v", i+1, err)
			tr.Checks = append(tr.Checks, Check{Kind: "run", Detail: err.Error()})
		}
		tr.Passed = allPassed(tr.Checks)
		res.Passed = res.Passed && tr.Passed
		res.Turns = append(res.Turns, tr.TurnResult)
		if err != nil {
			break
		}
		history = append(history, Exchange{Input: tr.Input, Answer: tr.Answer})
	}
	res.Duration = Millis(time.Since(start))
	return res
}

// checks runs a turn's expectations over its result.
func (r *Runner) checks(ctx context.Context, t *Turn, tr *turnRun, history []Exchange) []Check {
	checks := checkAnswer(&t.Expect, &tr.TurnResult)
	if t.Expect.Tools != nil {
		checks = append(checks, checkTrajectory(t.Expect.Tools, tr.ToolCalls))
	}
	if rub := t.Expect.Judge; rub != nil {
		checks = append(checks, r.judge(ctx, rub, JudgeQuestion{Rubric: rub.Rubric, History: history, Input: tr.Input, Answer: tr.Answer}))
	}
	return checks
}

// judge asks the judge model and compares its score with the threshold.
func (r *Runner) judge(ctx context.Context, rub *Rubric, q JudgeQuestion) Check {
	c := Check{Kind: "judge"}
	if r.Judge == nil {
		c.Detail = "no judge model: give the cases file a judge (baseUrl, model) or give the agent a model backend"
		return c
	}
	threshold := DefaultJudgeThreshold
	if rub.Threshold != nil {
		threshold = *rub.Threshold
	}
	score, reason, err := r.Judge.Score(ctx, q)
	if err != nil {
		c.Detail = err.Error()
		return c
	}
	c.Score = &score
	c.Passed = score >= threshold
	c.Detail = fmt.Sprintf("score %.2f (threshold %.2f): %s", score, threshold, reason)
	return c
}

func allPassed(checks []Check) bool {
	for _, c := range checks {
		if !c.Passed {
			return false
		}
	}
	return true
}
