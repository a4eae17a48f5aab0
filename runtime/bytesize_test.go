package runtime

import "testing"

func TestFormatBytes(t *testing.T) {
	tests := []struct {
		n    int64
		want string
	}{
		{0, "0B"},
		{1, "1B"},
		{1000, "1000B"},
		{1023, "1023B"},
		{1024, "1KiB"},
		{1536, "1536B"},
		{2048, "2KiB"},
		{1 << 20, "1MiB"},
		{1048576 + 1024, "1025KiB"},
		{1048576 + 1, "1048577B"},
		{3 << 20, "3MiB"},
		{1 << 30, "1GiB"},
		{5 << 30, "5GiB"},
		{(1 << 30) + (1 << 20), "1025MiB"},
		{-1024, "-1024B"},
	}
	for _, tt := range tests {
		if got := FormatBytes(tt.n); got != tt.want {
			t.Errorf("FormatBytes(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}
