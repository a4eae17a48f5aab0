package eval

import (
	"fmt"
	"strings"

	"github.com/harnest/harnest/internal/contract"
)

// checkAnswer runs a turn's answer checks (everything but the judge, which
// calls out): the status, contains, notContains, regex, equals and schema.
func checkAnswer(e *Expect, t *TurnResult) []Check {
	checks := []Check{statusCheck(e.Status, t.Status)}
	answer := t.Answer
	for _, s := range e.Contains {
		c := Check{Kind: "contains", Passed: strings.Contains(answer, s)}
		if !c.Passed {
			c.Detail = fmt.Sprintf("the answer %q does not contain %q", shorten(answer, 120), s)
		}
		checks = append(checks, c)
	}
	for _, s := range e.NotContains {
		c := Check{Kind: "notContains", Passed: !strings.Contains(answer, s)}
		if !c.Passed {
			c.Detail = fmt.Sprintf("the answer %q contains %q", shorten(answer, 120), s)
		}
		checks = append(checks, c)
	}
	for _, re := range e.regexes {
		c := Check{Kind: "regex", Passed: re.MatchString(answer)}
		if !c.Passed {
			c.Detail = fmt.Sprintf("the answer %q does not match /%s/", shorten(answer, 120), re)
		}
		checks = append(checks, c)
	}
	if e.Equals != nil {
		want := strings.TrimSpace(*e.Equals)
		c := Check{Kind: "equals", Passed: strings.TrimSpace(answer) == want}
		if !c.Passed {
			c.Detail = fmt.Sprintf("the answer is %q, want %q", shorten(answer, 120), shorten(want, 120))
		}
		checks = append(checks, c)
	}
	if e.schema != nil {
		checks = append(checks, schemaCheck(e.schema, t))
	}
	return checks
}

// statusCheck compares the receipt's status with the expected one.
func statusCheck(want, got string) Check {
	c := Check{Kind: "status", Passed: got == want}
	if !c.Passed {
		c.Detail = fmt.Sprintf("the response is %s, want %s", orNone(got), want)
	}
	return c
}

// schemaCheck validates the typed result (the receipt's result), or the
// answer's text read as JSON when there is none.
func schemaCheck(s *contract.Schema, t *TurnResult) Check {
	c := Check{Kind: "schema"}
	value := t.Result
	if len(value) == 0 {
		v, ok := contract.ParseOutput(t.Answer)
		if !ok {
			c.Detail = "the answer has no typed result and its text is not JSON"
			return c
		}
		value = v
	}
	if vs := s.Check(value); len(vs) > 0 {
		c.Detail = contract.Describe(vs)
		return c
	}
	c.Passed = true
	return c
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
