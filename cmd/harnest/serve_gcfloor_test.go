package main

import (
	"strings"
	"testing"
)

// The collector's floor comes from HARNEST_GC_FLOOR, is 64 MiB without it,
// and is off with 0 or when the operator set GOGC; a size that is not one
// is refused with what to write instead.
func TestGCFloorFromTheEnvironment(t *testing.T) {
	for _, c := range []struct {
		env     map[string]string
		want    uint64
		wantErr string
	}{
		{env: nil, want: 64 << 20},
		{env: map[string]string{"HARNEST_GC_FLOOR": "256MiB"}, want: 256 << 20},
		{env: map[string]string{"HARNEST_GC_FLOOR": "0"}, want: 0},
		{env: map[string]string{"GOGC": "200"}, want: 0},
		{env: map[string]string{"GOGC": "200", "HARNEST_GC_FLOOR": "256MiB"}, want: 0},
		{env: map[string]string{"HARNEST_GC_FLOOR": "lots"}, wantErr: "64MiB"},
	} {
		got, err := gcFloor(func(k string) string { return c.env[k] })
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%v: %d, %v; want an error saying %q", c.env, got, err, c.wantErr)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%v: %d, %v; want %d", c.env, got, err, c.want)
		}
	}
}
