package proc

import (
	"os"
	"testing"
	"time"
)

func TestOwnProcess(t *testing.T) {
	rss, err := RSSKiB(os.Getpid())
	if err != nil || rss <= 0 {
		t.Fatalf("RSSKiB(self) = %d, %v; want a positive size", rss, err)
	}
	if _, err := CPUTime(os.Getpid()); err != nil {
		t.Fatalf("CPUTime(self): %v", err)
	}
	if _, err := RSSKiB(0); err == nil {
		t.Fatal("RSSKiB(0) = nil error, want one")
	}
}

func TestParseStat(t *testing.T) {
	// A command name with spaces and parentheses, utime 250 and stime 50 ticks.
	line := "1234 (my (odd) cmd) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 1 0 100 1000 10\n"
	got, err := parseStat(line)
	if err != nil || got != 3*time.Second {
		t.Fatalf("parseStat = %v, %v; want 3s", got, err)
	}
	if _, err := parseStat("garbage"); err == nil {
		t.Fatal("parseStat(garbage) = nil error")
	}
}
