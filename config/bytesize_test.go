package config

import (
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

func TestByteSizeString(t *testing.T) {
	tests := []struct {
		size ByteSize
		want string
	}{
		{0, "0B"},
		{1, "1B"},
		{1000, "1000B"},
		{1024, "1KiB"},
		{1536, "1536B"},
		{1048576, "1MiB"},
		{3 * MiB, "3MiB"},
		{MiB + KiB, "1025KiB"},
		{GiB, "1GiB"},
		{4 * GiB, "4GiB"},
	}
	for _, tt := range tests {
		if got := tt.size.String(); got != tt.want {
			t.Errorf("ByteSize(%d).String() = %q, want %q", int64(tt.size), got, tt.want)
		}
	}
}

func TestParseByteSize(t *testing.T) {
	tests := []struct {
		in   string
		want ByteSize
		ok   bool
	}{
		{"1", 1, true},
		{"1024", KiB, true},
		{"10B", 10, true},
		{"1KiB", KiB, true},
		{"1MiB", MiB, true},
		{"2GiB", 2 * GiB, true},
		{"0", 0, false},
		{"01KiB", 0, false},
		{"-1", 0, false},
		{"1KB", 0, false},
		{"1 MiB", 0, false},
		{"1mib", 0, false},
		{"MiB", 0, false},
		{"", 0, false},
		{"9223372036854775807", 1<<63 - 1, true},
		{"9223372036854775808", 0, false},
		{"8589934592GiB", 0, false},
	}
	for _, tt := range tests {
		got, err := ParseByteSize(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseByteSize(%q) = %v, %v; want %v, ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
		if err != nil && len(tt.in) > 4 && strings.Contains(err.Error(), tt.in) {
			t.Errorf("ParseByteSize(%q) error repeats the input: %v", tt.in, err)
		}
	}
}

func TestByteSizeYAML(t *testing.T) {
	var v struct {
		Size ByteSize `yaml:"size"`
	}
	for in, want := range map[string]ByteSize{"size: 2048": 2 * KiB, "size: 1MiB": MiB, `size: "4096"`: 4 * KiB, "size: 0x400": KiB} {
		if err := yaml.Unmarshal([]byte(in), &v); err != nil || v.Size != want {
			t.Errorf("%s: got %v, %v; want %v", in, v.Size, err, want)
		}
	}
	for _, in := range []string{"size: 0", "size: -5", "size: 1.5", "size: 12MB", "size: [1]", "size: true"} {
		if err := yaml.Unmarshal([]byte(in), &v); err == nil {
			t.Errorf("%s: accepted", in)
		}
	}
	out, err := yaml.Marshal(struct {
		Size ByteSize `yaml:"size"`
	}{MiB})
	if err != nil || strings.TrimSpace(string(out)) != "size: 1MiB" {
		t.Errorf("Marshal = %q, %v", out, err)
	}
}
