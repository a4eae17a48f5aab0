package eval

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

// JUnit XML, as CI systems read it: one testsuite (the cases file), one
// testcase per case, a failure element with the failed checks.

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name      string      `xml:"name,attr"`
	Tests     int         `xml:"tests,attr"`
	Failures  int         `xml:"failures,attr"`
	Errors    int         `xml:"errors,attr"`
	Skipped   int         `xml:"skipped,attr"`
	Time      string      `xml:"time,attr"`
	Timestamp string      `xml:"timestamp,attr"`
	Cases     []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	Error     *junitFailure `xml:"error,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes the report as JUnit XML. A case whose conversation
// could not go on (a wait it does not answer, a turn that did not start or
// end) is an error; a case with a failed check a failure.
func (r *Report) WriteJUnit(w io.Writer) error {
	suite := junitSuite{Name: "harnest eval " + r.Agent, Tests: r.Total, Time: seconds(r.Duration),
		Timestamp: r.StartedAt.Format("2006-01-02T15:04:05")}
	for _, c := range r.Cases {
		jc := junitCase{Name: c.Name, Classname: r.Agent, Time: seconds(c.Duration), SystemOut: transcript(c)}
		if !c.Passed {
			f := &junitFailure{Message: c.firstFailure(), Type: "check", Text: failedChecks(c)}
			if c.Error != "" {
				f.Type = "run"
				jc.Error = f
				suite.Errors++
			} else {
				jc.Failure = f
				suite.Failures++
			}
		}
		suite.Cases = append(suite.Cases, jc)
	}
	doc := junitSuites{Name: "harnest eval", Tests: suite.Tests, Failures: suite.Failures, Errors: suite.Errors,
		Time: suite.Time, Suites: []junitSuite{suite}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func seconds(d Millis) string { return fmt.Sprintf("%.3f", d.Seconds()) }

// failedChecks lists every failed check of a case, one a line.
func failedChecks(c CaseResult) string {
	var b strings.Builder
	for i, t := range c.Turns {
		for _, ch := range t.Checks {
			if !ch.Passed {
				fmt.Fprintf(&b, "turn %d: %s: %s\n", i+1, ch.Kind, ch.Detail)
			}
		}
	}
	return b.String()
}

// transcript is the case's conversation, for system-out.
func transcript(c CaseResult) string {
	var b strings.Builder
	for _, t := range c.Turns {
		fmt.Fprintf(&b, "> %s\n< [%s] %s\n", t.Input, orNone(t.Status), t.Answer)
		for _, call := range t.ToolCalls {
			fmt.Fprintf(&b, "  tool %s %s\n", call.Name, call.Arguments)
		}
	}
	return b.String()
}
