// Package text holds relay-poll-v1's rules for the words outside agents
// and recipes bring: plain text within a length, no markup, no outside
// links, and the kind of a participant; and how the relay writes a time
// (Stamp). The relay's door turns a broken rule into its 422 body;
// relay/recipes into a recipe file's problem.
package text

import (
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Check applies the reply rules: nonblank, at most max characters, no
// control characters but newlines and tabs. It returns the broken rule as
// a sentence naming what, or "".
func Check(s string, max int, what string) string {
	if strings.TrimSpace(s) == "" {
		return fmt.Sprintf("The %s must not be blank.", what)
	}
	if n := utf8.RuneCountInString(s); n > max {
		return fmt.Sprintf("The %s has %d characters; at most %d are allowed.", what, n, max)
	}
	for _, c := range s {
		if c == utf8.RuneError || unicode.IsControl(c) && c != '\n' && c != '\r' && c != '\t' {
			return fmt.Sprintf("The %s must not contain control characters.", what)
		}
	}
	return ""
}

// Plain is Check plus no markup.
func Plain(s string, max int, what string) string {
	if p := Check(s, max, what); p != "" {
		return p
	}
	if HasMarkup(s) {
		return fmt.Sprintf("The %s must be plain text without markup.", what)
	}
	return ""
}

// HasMarkup reports HTML tags or Markdown links and images.
func HasMarkup(s string) bool {
	for i := 0; i+1 < len(s); i++ {
		if s[i] == '<' {
			c := s[i+1]
			if c == '/' || c == '!' || c == '?' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
				return true
			}
		}
	}
	return strings.Contains(s, "](") || strings.Contains(s, "```") || strings.Contains(s, "&#") || strings.Contains(s, "&lt;")
}

// HasLink reports anything that points outside: a URL scheme, a
// protocol-relative address or a www. host.
func HasLink(s string) bool {
	l := strings.ToLower(s)
	return strings.Contains(l, "://") || strings.Contains(l, "www.") || strings.Contains(l, "mailto:") ||
		strings.Contains(l, "javascript:") || strings.Contains(l, "data:")
}

// Kind applies the rules of a participant's kind (a pairing code's, a
// card's, a recipe's id): 1 to 40 lower-case letters, digits, '-', '_'
// and '.'. It returns the broken rule as a sentence, or "".
func Kind(kind string) string {
	if kind == "" || len(kind) > 40 {
		return "The kind must be 1 to 40 characters."
	}
	for _, c := range kind {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return "The kind may use lower-case letters, digits, '-', '_' and '.' only."
		}
	}
	return ""
}

// timeFormat is how the relay writes times: UTC, milliseconds, a Z.
const timeFormat = "2006-01-02T15:04:05.000Z"

// Stamp writes t as the relay does, in its bodies and the owner's feed.
func Stamp(t time.Time) string { return t.UTC().Format(timeFormat) }
