package chat

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestRedactorReplacesEverySecret(t *testing.T) {
	r := newRedactor("sk-abcdef", "", "org<1>", "sk-abcdef-longer")
	got := r.redact(`key sk-abcdef-longer, key sk-abcdef, org org<1> escaped "org\u003c1\u003e"`)
	want := `key [redacted], key [redacted], org [redacted] escaped "[redacted]"`
	if got != want {
		t.Fatalf("redact =\n%s\nwant\n%s", got, want)
	}
	if s := newRedactor().redact("nothing to hide"); s != "nothing to hide" {
		t.Fatalf("a redactor without secrets changed the text: %q", s)
	}
}

func TestLogTextIsBoundedAndNeverCutsASecretOpen(t *testing.T) {
	const key = "sk-0123456789abcdefghij"
	r := newRedactor(key)
	// Keys early on shorten the text when redacted; one more key crosses
	// the read bound, so only its start is read.
	var body strings.Builder
	for range 20 {
		body.WriteString(key + " ")
	}
	body.WriteString(strings.Repeat("x", maxLoggedBytes+len(key)-body.Len()-5))
	body.WriteString(key + strings.Repeat("y", 4000))
	text := r.logText(strings.NewReader(body.String()))
	if strings.Contains(text, key[:5]) {
		t.Fatalf("a piece of the key survived: ...%s", text[max(0, len(text)-80):])
	}
	if len(text) > maxLoggedBytes+len(" …(truncated)") || !strings.HasSuffix(text, "(truncated)") {
		t.Fatalf("the text is %d bytes, ending %q", len(text), text[len(text)-20:])
	}
	if short := r.logText(strings.NewReader("short " + key)); short != "short [redacted]" {
		t.Fatalf("short text = %q", short)
	}
}

func TestBoundedCutsBetweenRunes(t *testing.T) {
	text := newRedactor().bounded(bytes.Repeat([]byte("é"), maxLoggedBytes), true)
	if !strings.HasSuffix(text, "é …(truncated)") {
		t.Fatalf("the text ends %q", text[len(text)-20:])
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	cases := []struct {
		header map[string]string
		wait   time.Duration
		ok     bool
	}{
		{map[string]string{}, 0, false},
		{map[string]string{"Retry-After": "7"}, 7 * time.Second, true},
		{map[string]string{"Retry-After": "1.5"}, 1500 * time.Millisecond, true},
		{map[string]string{"Retry-After": "-3"}, 0, true},
		{map[string]string{"Retry-After": now.Add(30 * time.Second).Format(http.TimeFormat)}, 30 * time.Second, true},
		{map[string]string{"Retry-After": now.Add(-time.Hour).Format(http.TimeFormat)}, 0, true},
		{map[string]string{"Retry-After": "soon"}, 0, false},
		{map[string]string{"Retry-After-Ms": "250", "Retry-After": "9"}, 250 * time.Millisecond, true},
	}
	for _, c := range cases {
		h := http.Header{}
		for k, v := range c.header {
			h.Set(k, v)
		}
		wait, ok := retryAfter(h, now)
		if wait != c.wait || ok != c.ok {
			t.Errorf("retryAfter(%v) = %v, %v; want %v, %v", c.header, wait, ok, c.wait, c.ok)
		}
	}
}

func TestBackoff(t *testing.T) {
	for n, base := range []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 8 * time.Second, 8 * time.Second} {
		for range 20 {
			if d := backoff(n); d < base || d > base+base/10 {
				t.Fatalf("backoff(%d) = %v, want %v to %v", n, d, base, base+base/10)
			}
		}
	}
	if d := backoff(1000); d < maxBackoff || d > maxBackoff+maxBackoff/10 {
		t.Fatalf("backoff(1000) = %v", d)
	}
}
