package chat

import (
	"encoding/json"
	"io"
	"sort"
	"strings"
	"unicode/utf8"
)

// maxLoggedBytes bounds the provider text that goes to the log.
const maxLoggedBytes = 2 << 10

// redactedMark replaces every secret in logged text.
const redactedMark = "[redacted]"

// redactor replaces secrets (the API key, header values) in text that
// goes to the log: as written, and as JSON would escape them.
type redactor struct {
	secrets  []string // longest first, so a longer secret wins over a part of it
	replacer *strings.Replacer
}

// newRedactor redacts every non-empty secret.
func newRedactor(secrets ...string) *redactor {
	seen := map[string]bool{}
	var all []string
	add := func(s string) {
		if s != "" && !seen[s] {
			seen[s] = true
			all = append(all, s)
		}
	}
	for _, s := range secrets {
		add(s)
		escaped, _ := json.Marshal(s)
		add(strings.Trim(string(escaped), `"`))
	}
	sort.Slice(all, func(i, j int) bool { return len(all[i]) > len(all[j]) })
	pairs := make([]string, 0, 2*len(all))
	for _, s := range all {
		pairs = append(pairs, s, redactedMark)
	}
	return &redactor{secrets: all, replacer: strings.NewReplacer(pairs...)}
}

// redact returns s with every secret replaced.
func (r *redactor) redact(s string) string {
	if len(r.secrets) == 0 {
		return s
	}
	return r.replacer.Replace(s)
}

// longest is the length of the longest secret.
func (r *redactor) longest() int {
	if len(r.secrets) == 0 {
		return 0
	}
	return len(r.secrets[0])
}

// bounded returns raw, redacted and cut to maxLoggedBytes. When cut is
// set (raw is the start of something longer), a piece at its end that
// could be the start of a secret is dropped first, so that no part of a
// secret survives the cut.
func (r *redactor) bounded(raw []byte, cut bool) string {
	s := string(raw)
	if cut {
		s = r.dropPartialSecret(s)
	}
	s = r.redact(s)
	if len(s) <= maxLoggedBytes && !cut {
		return s
	}
	if len(s) > maxLoggedBytes {
		end := maxLoggedBytes
		for end > 0 && !utf8.RuneStart(s[end]) {
			end-- // cut between runes
		}
		s = s[:end]
	}
	return s + " …(truncated)"
}

// dropPartialSecret drops the end of s while it is the beginning of a
// secret.
func (r *redactor) dropPartialSecret(s string) string {
	for dropped := true; dropped; {
		dropped = false
		for _, secret := range r.secrets {
			for k := min(len(secret)-1, len(s)); k > 0; k-- {
				if strings.HasSuffix(s, secret[:k]) {
					s, dropped = s[:len(s)-k], true
					break
				}
			}
		}
	}
	return s
}

// readBounded reads at most n bytes of body; cut reports that there was
// more (which is left unread).
func readBounded(body io.Reader, n int) (b []byte, cut bool, err error) {
	b, err = io.ReadAll(io.LimitReader(body, int64(n)+1))
	if len(b) > n {
		return b[:n], true, err
	}
	return b, false, err
}

// logText reads the start of body for the log: enough to redact a secret
// that crosses the bound, redacted and bounded.
func (r *redactor) logText(body io.Reader) string {
	b, cut, _ := readBounded(body, maxLoggedBytes+r.longest())
	return r.bounded(b, cut)
}
