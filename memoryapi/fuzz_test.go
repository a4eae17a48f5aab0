package memoryapi

import (
	"errors"
	"testing"

	"github.com/harnest/harnest/internal/memory"
)

// FuzzBodies: any body is decoded or refused with a field error, never a
// panic.
func FuzzBodies(f *testing.F) {
	for _, seed := range []string{`{"value":{"a":1},"text":"t","ttlSeconds":5}`, `{"query":"x","namespace":"n","limit":3}`,
		`{"value":null}`, `[]`, `{"ttlSeconds":"1"}`, `{"limit":1e400}`, `"x"`, ``} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var fe *memory.FieldError
		if _, err := decodePut(body); err != nil && !errors.As(err, &fe) {
			t.Fatalf("decodePut(%q): %v", body, err)
		}
		if _, err := decodeSearch(body); err != nil && !errors.As(err, &fe) {
			t.Fatalf("decodeSearch(%q): %v", body, err)
		}
	})
}
