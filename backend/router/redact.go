package router

import (
	"regexp"
	"strings"

	"github.com/harnest/harnest/runtime"
)

// What is redacted from a visitor's message and screened out of the
// answer a visitor is served.
var redactions = []struct {
	pattern     *regexp.Regexp
	replacement string
}{
	// URLs with credentials first, before the e-mail pattern sees user@host.
	{regexp.MustCompile(`(?i)\b[a-z][a-z0-9+.-]*://[^\s/@:]+:[^\s/@]*@[^\s]+`), "[redacted url]"},
	{regexp.MustCompile(`(?i)\b[a-z0-9._%+-]+@[a-z0-9.-]+\.[a-z]{2,}\b`), "[redacted email]"},
	// Strings that look like keys or tokens: known prefixes, bearer
	// tokens, JWTs, and long runs of letters and digits that mix both.
	{regexp.MustCompile(`(?i)\bbearer\s+[a-z0-9._~+/=-]{8,}`), "[redacted token]"},
	{regexp.MustCompile(`\b(?:sk|pk|rk|ghp|gho|ghs|xox[abpr]|AKIA|AIza)[-_A-Za-z0-9]{12,}`), "[redacted key]"},
	{regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]+`), "[redacted token]"},
	{regexp.MustCompile(`\b[A-Za-z0-9_-]*(?:[A-Za-z][A-Za-z0-9_-]*[0-9]|[0-9][A-Za-z0-9_-]*[A-Za-z])[A-Za-z0-9_-]*\b`), ""}, // filtered by looksLikeKey
	// Phone numbers: an optional +, then 7 to 15 digits with spaces,
	// dots, dashes or brackets between them.
	{regexp.MustCompile(`\+?\(?\d[\d\s().-]{6,}\d`), "[redacted phone]"},
}

// looksLikeKey reports a long run that mixes letters and digits, as keys
// and tokens do (ordinary words and numbers do not).
func looksLikeKey(s string) bool {
	if len(s) < 24 {
		return false
	}
	letters, digits := 0, 0
	for _, c := range s {
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			letters++
		}
	}
	return letters >= 4 && digits >= 4
}

// Redact replaces e-mail addresses, phone numbers, URLs with credentials
// and strings that look like keys or tokens.
func Redact(text string) string {
	for _, r := range redactions {
		if r.replacement == "" {
			text = r.pattern.ReplaceAllStringFunc(text, func(s string) string {
				if looksLikeKey(s) {
					return "[redacted key]"
				}
				return s
			})
			continue
		}
		text = r.pattern.ReplaceAllStringFunc(text, func(s string) string {
			if d := countDigits(s); r.replacement == "[redacted phone]" && (d < 7 || d > 15) {
				return s
			}
			return r.replacement
		})
	}
	return text
}

func countDigits(s string) int {
	n := 0
	for _, c := range s {
		if c >= '0' && c <= '9' {
			n++
		}
	}
	return n
}

// redactedTurn is a visitor's turn with its text redacted.
func redactedTurn(turn *runtime.Turn) *runtime.Turn {
	t := *turn
	t.Input = Redact(turn.Input)
	t.Content = make([]runtime.ContentInput, len(turn.Content))
	for i, c := range turn.Content {
		if c.Type == "text" {
			c.Text = Redact(c.Text)
		}
		t.Content[i] = c
	}
	return &t
}

// screenEvents screens held events for a visitor: the text deltas become
// one screened delta where the first one was.
func screenEvents(held []runtime.Event) []runtime.Event {
	var text strings.Builder
	first := -1
	out := make([]runtime.Event, 0, len(held))
	for _, ev := range held {
		if ev.Type != runtime.EventTextDelta {
			out = append(out, ev)
			continue
		}
		if first < 0 {
			first = len(out)
			out = append(out, runtime.Event{Type: runtime.EventTextDelta})
		}
		text.WriteString(ev.Delta)
	}
	if first >= 0 {
		out[first].Delta = Redact(text.String())
	}
	return out
}
