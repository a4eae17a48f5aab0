package sse

import (
	"net/http/httptest"
	"strconv"
	"testing"
)

func TestResumeAfter(t *testing.T) {
	parse := func(s string) (int, bool) {
		n, err := strconv.Atoi(s)
		return n, err == nil && n >= -1
	}
	later := func(a, b int) bool { return a > b }
	tests := []struct {
		query, lastEventID string
		want               int
		given, ok          bool
	}{
		{"", "", 0, false, true},
		{"after=0", "", 0, true, true},
		{"", "2", 2, true, true},
		{"after=0", "2", 2, true, true}, // a reconnecting EventSource
		{"after=5", "2", 5, true, true},
		{"after=-1", "-1", -1, true, true},
		{"after=", "3", 3, true, true},
		{"after=x", "2", 0, true, false},
		{"after=0", "x", 0, true, false},
		{"", "-2", 0, true, false},
	}
	for _, tt := range tests {
		r := httptest.NewRequest("GET", "/events?"+tt.query, nil)
		if tt.lastEventID != "" {
			r.Header.Set("Last-Event-ID", tt.lastEventID)
		}
		got, given, ok := ResumeAfter(r, parse, later)
		if got != tt.want || given != tt.given || ok != tt.ok {
			t.Errorf("%q, Last-Event-ID %q: %d %v %v; want %d %v %v", tt.query, tt.lastEventID, got, given, ok, tt.want, tt.given, tt.ok)
		}
	}
}
