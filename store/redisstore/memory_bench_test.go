package redisstore

import (
	"context"
	"fmt"
	"testing"

	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/store"
	"github.com/harnest/harnest/store/storetest"
)

// BenchmarkMemorySearch is a keyword search of one user's memory of 10k
// and 100k items (storetest.BenchMemorySearch) on a real redis-server
// (the embedded miniredis is no figure of Redis); -short leaves out 100k.
func BenchmarkMemorySearch(b *testing.B) {
	for _, c := range testutil.Stores(b) {
		if c.URL == "" {
			continue
		}
		for _, n := range []int{10_000, 100_000} {
			var s *Store
			scope := store.MemoryScope{Agent: "bench", User: "u"}
			b.Run(fmt.Sprintf("%s/items=%dk", c.Name, n/1000), func(b *testing.B) {
				if n > 10_000 && testing.Short() {
					b.Skip("100k items: not with -short")
				}
				if s == nil {
					var err error
					if s, err = Open(context.Background(), Options{URL: c.URL, KeyPrefix: testutil.Prefix(b)}); err != nil {
						b.Fatal(err)
					}
					storetest.FillMemory(b, s, scope, n, 8)
				}
				storetest.BenchMemorySearch(b, s, scope)
			})
			if s != nil {
				s.Close()
			}
		}
	}
}
