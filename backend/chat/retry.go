package chat

import (
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Backoff between retries: 0.5 s, 1 s, 2 s, ... capped at 8 s, each with
// up to a tenth more of jitter.
const (
	firstBackoff = 500 * time.Millisecond
	maxBackoff   = 8 * time.Second
)

// backoff is the wait before retry number n (0 for the first retry).
func backoff(n int) time.Duration {
	d := maxBackoff
	if n < 5 {
		d = min(firstBackoff<<n, maxBackoff)
	}
	return d + time.Duration(rand.Int64N(int64(d/10)+1))
}

// retryAfter is the wait the endpoint asked for: Retry-After in seconds or
// as an HTTP date, or OpenAI's retry-after-ms. ok is false when it asked
// for none.
func retryAfter(h http.Header, now time.Time) (wait time.Duration, ok bool) {
	if ms := strings.TrimSpace(h.Get("Retry-After-Ms")); ms != "" {
		if n, err := strconv.ParseFloat(ms, 64); err == nil && n >= 0 {
			return time.Duration(n * float64(time.Millisecond)), true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if n, err := strconv.ParseFloat(v, 64); err == nil {
		return time.Duration(max(n, 0) * float64(time.Second)), true
	}
	if at, err := http.ParseTime(v); err == nil {
		return max(at.Sub(now), 0), true
	}
	return 0, false
}

// retryable reports whether an answer of status is worth another attempt.
func retryable(status int) bool {
	return status == http.StatusTooManyRequests || status >= 500
}

// retryBudget is what is left of a call's timeout for waits between
// attempts. It counts the waits it granted as well as the clock, so that
// an injected Sleep that returns at once still ends the retries.
type retryBudget struct {
	deadline time.Time
	timeout  time.Duration
	waited   time.Duration
	retries  int
}

// grant reports whether a wait of d still ends within the timeout, and
// counts it when it does.
func (b *retryBudget) grant(d time.Duration) bool {
	if d > time.Until(b.deadline) || b.waited+d > b.timeout {
		return false
	}
	b.waited += d
	b.retries++
	return true
}
