package runtime

import (
	"bytes"
	"testing"
)

func TestResumePointCarriesTheWaitCount(t *testing.T) {
	stored := map[string][]byte{
		"step/1": withWaits(1, []byte(`{"a":1}`)),
		"step/2": withWaits(3, []byte(`{"b":2}`)),
		"old":    []byte(`{"before":"the prefix"}`), // stored before counts existed
		"empty":  withWaits(0, nil),
	}
	points, waits := recalledPoints(stored)
	if waits != 3 {
		t.Fatalf("waits = %d, want 3 (the highest recorded)", waits)
	}
	want := map[string]string{"step/1": `{"a":1}`, "step/2": `{"b":2}`, "old": `{"before":"the prefix"}`, "empty": ""}
	for key, data := range want {
		if !bytes.Equal(points[key], []byte(data)) {
			t.Errorf("point %q = %q, want %q", key, points[key], data)
		}
	}
	for _, odd := range []string{"w", "w\n", "wx\n{}", "w-1\n{}", "5"} {
		if n, data := splitWaits([]byte(odd)); n != 0 || string(data) != odd {
			t.Errorf("splitWaits(%q) = %d, %q; want 0 and the data unchanged", odd, n, data)
		}
	}
}
