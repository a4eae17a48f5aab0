package eval_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/eval"
	"github.com/harnest/harnest/internal/testutil/fakemodel"
	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/server/servertest"
	junit "github.com/joshdk/go-junit"
)

// runCases runs a cases file against an echo agent with the given options,
// on the in-process store.
func runCases(t *testing.T, echo config.EchoBackend, judge eval.Judge, cases string) (*eval.Report, *servertest.Server) {
	t.Helper()
	ts := servertest.Start(t, "", servertest.Setup{Config: func(c *config.Config) { c.Spec.Backend.Echo = &echo }})
	f, err := eval.Parse([]byte(cases), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r := eval.Runner{Service: ts.Srv.Service, Agent: "hello", Judge: judge, TurnTimeout: 10 * time.Second}
	return r.Run(ctx, f, 1.0), ts
}

// The case answers the agent's approval: approved, the answer comes;
// denied, the receipt is denied; not answered, the case stops with a
// sentence that says which approval, and the response does not stay
// waiting.
func TestRunAnswersApprovals(t *testing.T) {
	rep, ts := runCases(t, config.EchoBackend{Approval: "send_email", ToolCall: true}, nil, `
cases:
  - name: approved
    approvals: {send_email: approve}
    turns:
      - input: mail Bob
        expect: {equals: "Echo: mail Bob", tools: {calls: [{name: echo, args: {text: mail Bob}}]}}
  - name: denied
    approvals: {"*": deny}
    turns:
      - input: mail Bob
        expect: {status: denied, tools: {calls: []}}
  - name: not answered
    turns:
      - input: mail Bob
      - input: never sent
`)
	if rep.Total != 3 || rep.Passed != 2 || rep.OK {
		t.Fatalf("report: %d of %d passed, ok %v: %+v", rep.Passed, rep.Total, rep.OK, rep.Cases)
	}
	approved, denied, open := rep.Cases[0], rep.Cases[1], rep.Cases[2]
	if !approved.Passed || approved.Turns[0].Waits[0] != "approval send_email: approve" {
		t.Errorf("approved: %+v", approved)
	}
	if !denied.Passed || denied.Turns[0].Status != runtime.StatusDenied {
		t.Errorf("denied: %+v", denied)
	}
	if open.Passed || !strings.Contains(open.Error, `turn 1: the agent asked to approve "send_email", which the case does not answer`) || len(open.Turns) != 1 {
		t.Fatalf("not answered: %+v", open)
	}
	// The waiting response was cancelled, not left holding its session.
	receipt, err := ts.Srv.Service.Receipt(context.Background(), runtime.Principal{UserID: eval.DefaultUser}, open.Session, open.Turns[0].ResponseID)
	if err != nil || receipt.Status != runtime.StatusCancelled {
		t.Errorf("the unanswered response is %q (%v)", receipt.Status, err)
	}
}

// A client tool request gets the case's output, as JSON.
func TestRunAnswersClientTools(t *testing.T) {
	rep, _ := runCases(t, config.EchoBackend{ClientTool: "get_location"}, nil, `
cases:
  - name: answered
    clientTools: {get_location: {city: Porto}}
    turns:
      - input: where am I
        expect: {contains: Porto}
  - name: not answered
    turns:
      - input: where am I
`)
	if !rep.Cases[0].Passed {
		t.Errorf("answered: %+v", rep.Cases[0])
	}
	if rep.Cases[1].Passed || !strings.Contains(rep.Cases[1].Error, `client tool "get_location", which the case does not answer`) {
		t.Errorf("not answered: %+v", rep.Cases[1])
	}
}

// The judge model is asked with the rubric, the conversation and the
// answer; its score passes at the threshold and fails below; a judge that
// fails or is missing fails the check with a reason.
func TestRunJudge(t *testing.T) {
	fake := fakemodel.Start(t)
	fake.Script(
		fakemodel.Reply{Text: `{"score": 0.9, "reason": "names the city"}`},
		fakemodel.Reply{Text: "```json\n{\"score\": 0.4, \"reason\": \"vague\"}\n```"},
		fakemodel.Reply{Status: 500},
	)
	judge := &eval.ChatJudge{Endpoint: eval.JudgeEndpoint{BaseURL: fake.URL, Model: "judge-1", APIKey: "k-secret"}}
	cases := `
cases:
  - name: good
    turns:
      - input: first
      - input: Lisbon please
        expect: {judge: {rubric: The answer names Lisbon.}}
  - name: vague
    turns:
      - input: somewhere
        expect: {judge: {rubric: The answer names a city., threshold: 0.5}}
  - name: judge down
    turns:
      - input: x
        expect: {judge: {rubric: r}}
`
	rep, _ := runCases(t, config.EchoBackend{}, judge, cases)
	good, vague, down := rep.Cases[0], rep.Cases[1], rep.Cases[2]
	if !good.Passed || *good.Turns[1].Checks[1].Score != 0.9 {
		t.Errorf("good: %+v", good)
	}
	if vague.Passed || !strings.Contains(vague.Turns[0].Checks[1].Detail, "score 0.40 (threshold 0.50): vague") {
		t.Errorf("vague: %+v", vague)
	}
	if down.Passed || !strings.Contains(down.Turns[0].Checks[1].Detail, "500") {
		t.Errorf("judge down: %+v", down)
	}
	reqs := fake.Requests()
	if len(reqs) != 3 || reqs[0].Model != "judge-1" || reqs[0].Header.Get("Authorization") != "Bearer k-secret" {
		t.Fatalf("judge requests: %+v", reqs)
	}
	prompt := reqs[0].Messages[1].Text()
	for _, want := range []string{"The answer names Lisbon.", "User: first\nAgent: Echo: first", "User: Lisbon please", "Echo: Lisbon please"} {
		if !strings.Contains(prompt, want) {
			t.Errorf("the judge's prompt lacks %q:\n%s", want, prompt)
		}
	}

	rep, _ = runCases(t, config.EchoBackend{}, nil, cases)
	if c := rep.Cases[0].Turns[1].Checks[1]; c.Passed || !strings.Contains(c.Detail, "no judge model") {
		t.Errorf("without a judge: %+v", c)
	}
}

// The JUnit XML reads in a JUnit parser: one test per case, failures and
// errors where the report has them, the failed checks in the message.
func TestJUnitReadsInAParser(t *testing.T) {
	rep, _ := runCases(t, config.EchoBackend{Approval: "go"}, nil, `
cases:
  - name: passes
    approvals: {go: approve}
    turns: [{input: a, expect: {contains: "Echo: a"}}]
  - name: fails <a check> & says why
    approvals: {go: approve}
    turns: [{input: b, expect: {contains: "nope", regex: "^Echo"}}]
  - name: cannot go on
    turns: [{input: c}]
`)
	var buf bytes.Buffer
	if err := rep.WriteJUnit(&buf); err != nil {
		t.Fatal(err)
	}
	suites, err := junit.Ingest(buf.Bytes())
	if err != nil {
		t.Fatalf("go-junit: %v\n%s", err, buf.String())
	}
	if len(suites) != 1 || len(suites[0].Tests) != 3 {
		t.Fatalf("suites: %+v", suites)
	}
	s := suites[0]
	if s.Totals.Tests != 3 || s.Totals.Passed != 1 || s.Totals.Failed != 1 || s.Totals.Error != 1 {
		t.Errorf("totals: %+v", s.Totals)
	}
	failed := s.Tests[1]
	if failed.Name != "fails <a check> & says why" || failed.Status != junit.StatusFailed ||
		!strings.Contains(failed.Message, `contains: the answer "Echo: b" does not contain "nope"`) {
		t.Errorf("failed test: %+v", failed)
	}
	if s.Tests[2].Status != junit.StatusError || !strings.Contains(s.Tests[2].Message, "does not answer") {
		t.Errorf("error test: %+v", s.Tests[2])
	}

	// And the JSON report reads back with the same totals.
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var back eval.Report
	if err := json.Unmarshal(b, &back); err != nil || back.Passed != 1 || back.Failed != 2 || back.PassRate != 1.0/3 {
		t.Errorf("JSON: %v %+v", err, back)
	}
}

// The table has a row per case and the totals.
func TestTable(t *testing.T) {
	rep, _ := runCases(t, config.EchoBackend{}, nil, `
cases:
  - {name: one, turns: [{input: a}]}
  - {name: two, turns: [{input: b, expect: {equals: c}}]}
`)
	var buf bytes.Buffer
	if err := rep.WriteTable(&buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{"CASE", "one", "pass", "two", "FAIL", `equals: the answer is "Echo: b", want "c"`, "1 passed, 1 failed of 2 cases: pass rate 50.0% (threshold 100.0%): FAILED"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}
