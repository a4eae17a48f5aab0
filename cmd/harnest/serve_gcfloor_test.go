package main

import (
	"strings"
	"testing"
)

// The collector's floor of a replica on Redis comes from HARNEST_GC_FLOOR,
// is 64 MiB without it, and is off with 0 or when the operator set GOGC; a
// size that is not one is refused with what to write instead. A replica on
// the in-process store has none.
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
		getenv := func(k string) string { return c.env[k] }
		if got, err := gcFloor(false, getenv); got != 0 || err != nil {
			t.Errorf("%v, in-process store: %d, %v; want no floor", c.env, got, err)
		}
		got, err := gcFloor(true, getenv)
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
