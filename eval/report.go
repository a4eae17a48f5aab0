package eval

import (
	"encoding/json"
	"time"
)

// Report is the result of one run of a cases file: what `harnest eval
// --json` writes.
type Report struct {
	Totals
	Cases []CaseResult `json:"cases"`
}

// Totals are a run's facts and counts, in its report and its summary.
type Totals struct {
	Agent     string    `json:"agent"`
	CasesFile string    `json:"casesFile"`
	StartedAt time.Time `json:"startedAt"`
	Duration  Millis    `json:"durationMs"`
	Total     int       `json:"total"`
	Passed    int       `json:"passed"`
	Failed    int       `json:"failed"`
	PassRate  float64   `json:"passRate"`
	Threshold float64   `json:"threshold"`
	OK        bool      `json:"ok"` // the pass rate reached the threshold
}

// CaseResult is one case: passed when every turn's every check passed.
type CaseResult struct {
	Name     string       `json:"name"`
	Passed   bool         `json:"passed"`
	Duration Millis       `json:"durationMs"`
	Session  string       `json:"sessionId,omitempty"`
	Error    string       `json:"error,omitempty"` // why the conversation could not go on
	Turns    []TurnResult `json:"turns"`
}

// TurnResult is one turn: the answer and its checks.
type TurnResult struct {
	Input      string          `json:"input"`
	ResponseID string          `json:"responseId,omitempty"`
	Status     string          `json:"status,omitempty"`
	Answer     string          `json:"answer"`
	Result     json.RawMessage `json:"result,omitempty"`
	ToolCalls  []ToolCall      `json:"toolCalls"`
	// Waits are the approvals and client tools the case answered.
	Waits    []string `json:"waits,omitempty"`
	Passed   bool     `json:"passed"`
	Duration Millis   `json:"durationMs"`
	Checks   []Check  `json:"checks"`
}

// Check is one expectation's outcome.
type Check struct {
	Kind   string   `json:"kind"` // status, contains, notContains, regex, equals, schema, tools.<match>, judge
	Passed bool     `json:"passed"`
	Detail string   `json:"detail,omitempty"`
	Score  *float64 `json:"score,omitempty"` // the judge's
}

// Millis is a duration written as whole milliseconds.
type Millis time.Duration

// MarshalJSON writes the milliseconds.
func (m Millis) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(m).Milliseconds())
}

// UnmarshalJSON reads milliseconds.
func (m *Millis) UnmarshalJSON(b []byte) error {
	var ms int64
	if err := json.Unmarshal(b, &ms); err != nil {
		return err
	}
	*m = Millis(time.Duration(ms) * time.Millisecond)
	return nil
}

// Seconds is the duration in seconds.
func (m Millis) Seconds() float64 { return time.Duration(m).Seconds() }

// finish counts the cases and compares the pass rate with threshold.
func (r *Report) finish(threshold float64) {
	r.Total, r.Passed, r.Failed = len(r.Cases), 0, 0
	for _, c := range r.Cases {
		if c.Passed {
			r.Passed++
		} else {
			r.Failed++
		}
	}
	r.PassRate = 0
	if r.Total > 0 {
		r.PassRate = float64(r.Passed) / float64(r.Total)
	}
	r.Threshold = threshold
	r.OK = r.Total > 0 && r.PassRate >= threshold
}

// firstFailure is a failed case's first reason, for the table and JUnit.
func (c CaseResult) firstFailure() string {
	if c.Error != "" {
		return c.Error
	}
	for i, t := range c.Turns {
		for _, ch := range t.Checks {
			if !ch.Passed {
				d := ch.Kind
				if ch.Detail != "" {
					d += ": " + ch.Detail
				}
				if len(c.Turns) > 1 {
					return "turn " + itoa(i+1) + ": " + d
				}
				return d
			}
		}
	}
	return ""
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
