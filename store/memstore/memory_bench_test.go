package memstore

import (
	"fmt"
	"testing"

	"github.com/harnest/harnest/store"
	"github.com/harnest/harnest/store/storetest"
)

// BenchmarkMemorySearch is a keyword search of one user's memory of 10k
// and 100k items (storetest.BenchMemorySearch); -short leaves out 100k.
func BenchmarkMemorySearch(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		var s *Store
		scope := store.MemoryScope{Agent: "bench", User: "u"}
		b.Run(fmt.Sprintf("items=%dk", n/1000), func(b *testing.B) {
			if n > 10_000 && testing.Short() {
				b.Skip("100k items: not with -short")
			}
			if s == nil {
				s = New(Options{})
				storetest.FillMemory(b, s, scope, n, 4)
			}
			storetest.BenchMemorySearch(b, s, scope)
		})
		if s != nil {
			s.Close()
		}
	}
}
