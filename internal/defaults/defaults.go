// Package defaults fills in the options a caller left out: a size, a
// count or a duration of zero or less, a nil logger, a nil clock. Each
// New of a door or a helper starts with a few of these.
package defaults

import (
	"log/slog"
	"time"
)

// Positive is v, or def when v is zero or less (left out).
func Positive[T ~int | ~int64 | ~float64](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// Logger is l, or a logger that discards everything when l is nil.
func Logger(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l
}

// Clock is now, or time.Now when now is nil.
func Clock(now func() time.Time) func() time.Time {
	if now == nil {
		return time.Now
	}
	return now
}
