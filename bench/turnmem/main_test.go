package main

import "testing"

func TestParseCounts(t *testing.T) {
	got, err := parseCounts("10000, 20000,100000")
	if err != nil || len(got) != 3 || got[2] != 100000 {
		t.Fatalf("parseCounts = %v, %v", got, err)
	}
	for _, bad := range []string{"", "x", "0", "20,10"} {
		if _, err := parseCounts(bad); err == nil {
			t.Errorf("parseCounts(%q) = nil error", bad)
		}
	}
}
