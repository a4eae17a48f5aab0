package redisstore

import (
	"context"
	"testing"

	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/store/storetest"
)

// BenchmarkTurn is the store's share of one response (storetest.BenchTurn),
// on the embedded miniredis and on a real redis-server.
func BenchmarkTurn(b *testing.B) {
	for _, c := range testutil.Stores(b) {
		b.Run(c.Name, func(b *testing.B) {
			s, err := Open(context.Background(), Options{URL: c.URL, KeyPrefix: testutil.Prefix(b)})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			storetest.BenchTurn(b, s)
		})
	}
}
