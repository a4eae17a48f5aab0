package contract

import (
	"encoding/json"
	"testing"
)

// BenchmarkCheck is the validation of one typed input: decoding it for
// the validator and checking it against a small schema.
func BenchmarkCheck(b *testing.B) {
	s, err := Compile("input schema", json.RawMessage(personSchema))
	if err != nil {
		b.Fatal(err)
	}
	value := json.RawMessage(`{"name":"Ada","age":36,"tags":["x","y"]}`)
	b.ReportAllocs()
	for range b.N {
		if vs := s.Check(value); vs != nil {
			b.Fatal(vs)
		}
	}
}
