package storetest

import (
	"strings"
	"testing"
)

// testBasics is the contract of the store itself: it answers Ping and
// describes itself without credentials.
func testBasics(t *testing.T, h Harness) {
	s := open(t, h)
	if err := s.Ping(ctx); err != nil {
		t.Fatalf("ping of an open store: %v", err)
	}
	d := s.Describe()
	if d == "" || strings.Contains(d, "@") || strings.Contains(d, "password") {
		t.Fatalf("Describe() = %q: want a description without credentials", d)
	}
}
