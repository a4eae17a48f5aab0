package main

import (
	"testing"
	"time"
)

func TestParseSizes(t *testing.T) {
	got, err := parseSizes("10, 100,1000")
	if err != nil || len(got) != 3 || got[2] != 1000 {
		t.Fatalf("parseSizes = %v, %v", got, err)
	}
	if got, err := parseSizes(""); err != nil || len(got) != 0 {
		t.Fatalf("parseSizes(\"\") = %v, %v; want none", got, err)
	}
	for _, bad := range []string{"x", "0", "100,10", "10,10"} {
		if _, err := parseSizes(bad); err == nil {
			t.Errorf("parseSizes(%q) = nil error", bad)
		}
	}
}

// timePages walks to the last page that has items, even when the server
// hands out a cursor to an empty page after a full one.
func TestTimePagesFindsTheLastPageWithItems(t *testing.T) {
	pages := map[string]struct {
		next  string
		items int
	}{"": {"a", 100}, "a": {"b", 100}, "b": {"c", 100}, "c": {"", 0}}
	var read []string
	page := func(cursor string) (string, int, error) {
		read = append(read, cursor)
		p := pages[cursor]
		return p.next, p.items, nil
	}
	probes := 0
	if _, _, err := timePages(t.Context(), 2, page, func() error { probes++; return nil }); err != nil {
		t.Fatal(err)
	}
	if last := read[len(read)-1]; last != "b" {
		t.Fatalf("the last page timed was %q, want b (read %v)", last, read)
	}
	if probes != 4 {
		t.Fatalf("%d probes, want one after each of the 4 timed reads", probes)
	}
}

// A figure is judged over its probes: a host twice as slow at the larger
// size, in both, is flat.
func TestRelativeIsOverTheProbes(t *testing.T) {
	small := row{took: 200 * time.Microsecond, probe: 100 * time.Microsecond}
	slowHost := row{took: 400 * time.Microsecond, probe: 200 * time.Microsecond}
	if small.relative() != slowHost.relative() {
		t.Fatalf("relative %v and %v, want the same", small.relative(), slowHost.relative())
	}
	if unprobed := (row{took: 300 * time.Microsecond}); unprobed.relative() != float64(300*time.Microsecond) {
		t.Fatalf("a row without probes: relative %v, want its figure", unprobed.relative())
	}
}

func TestMedian(t *testing.T) {
	if m := median([]time.Duration{5, 1, 3}); m != 3 {
		t.Fatalf("median = %v, want 3", m)
	}
	if m := median(nil); m != 0 {
		t.Fatalf("median(nil) = %v, want 0", m)
	}
}
