package eval

import "encoding/json"

// Summary is what is kept of a run for the playground (the store's
// EvalRuns): the totals and one row per case, without the answers.
type Summary struct {
	Totals
	Cases []CaseSummary `json:"cases"`
	// Omitted is how many cases were left out to keep the summary within
	// the store's bound (the JSON report has them all).
	Omitted int `json:"omitted,omitempty"`
}

// CaseSummary is one case's row.
type CaseSummary struct {
	Name     string `json:"name"`
	Passed   bool   `json:"passed"`
	Turns    int    `json:"turns"`
	Duration Millis `json:"durationMs"`
	Failure  string `json:"failure,omitempty"` // the first failed check
}

// maxFailureRunes bounds a case's failure in the summary.
const maxFailureRunes = 300

// Summary is the report's summary.
func (r *Report) Summary() Summary {
	s := Summary{Totals: r.Totals, Cases: make([]CaseSummary, 0, len(r.Cases))}
	for _, c := range r.Cases {
		s.Cases = append(s.Cases, CaseSummary{Name: shorten(c.Name, 200), Passed: c.Passed, Turns: len(c.Turns),
			Duration: c.Duration, Failure: shorten(c.firstFailure(), maxFailureRunes)})
	}
	return s
}

// encodeWithin is the summary as JSON of at most max bytes: the last
// cases are left out (and counted in Omitted) until it fits.
func (s Summary) encodeWithin(max int) ([]byte, error) {
	all := s.Cases
	for {
		b, err := json.Marshal(s)
		if err != nil || len(b) <= max || len(s.Cases) == 0 {
			return b, err
		}
		s.Cases = all[:len(s.Cases)/2]
		s.Omitted = len(all) - len(s.Cases)
	}
}
