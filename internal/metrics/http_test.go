package metrics

import (
	"strconv"
	"testing"
)

func TestStatusLabel(t *testing.T) {
	for _, code := range []int{0, 99, 100, 200, 404, 599, 600, 999, -1} {
		if got := statusLabel(code); got != strconv.Itoa(code) {
			t.Errorf("statusLabel(%d) = %q", code, got)
		}
	}
}
