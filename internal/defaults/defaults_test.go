package defaults

import (
	"log/slog"
	"testing"
	"time"
)

func TestDefaults(t *testing.T) {
	if got := Positive(0, 7); got != 7 {
		t.Errorf("Positive(0, 7) = %d, want 7", got)
	}
	if got := Positive(-1*time.Second, time.Minute); got != time.Minute {
		t.Errorf("Positive(-1s, 1m) = %v, want 1m", got)
	}
	if got := Positive(int64(3), 9); got != 3 {
		t.Errorf("Positive(3, 9) = %d, want 3", got)
	}
	if Logger(nil) == nil {
		t.Error("Logger(nil) is nil, want a discarding logger")
	}
	l := slog.Default()
	if Logger(l) != l {
		t.Error("Logger(l) is not l")
	}
	if Clock(nil) == nil {
		t.Error("Clock(nil) is nil, want time.Now")
	}
	fixed := time.Unix(1, 0)
	if got := Clock(func() time.Time { return fixed })(); !got.Equal(fixed) {
		t.Errorf("Clock(fixed)() = %v, want %v", got, fixed)
	}
}
