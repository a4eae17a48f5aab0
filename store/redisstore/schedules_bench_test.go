package redisstore

import (
	"context"
	"testing"

	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/store/storetest"
)

// BenchmarkClaimFire is one schedule fire's claim and start mark
// (storetest.BenchClaimFire) on the embedded miniredis and a real
// redis-server: claims/s is what one Redis sustains.
func BenchmarkClaimFire(b *testing.B) {
	for _, c := range testutil.Stores(b) {
		b.Run(c.Name, func(b *testing.B) {
			s, err := Open(context.Background(), Options{URL: c.URL, KeyPrefix: testutil.Prefix(b)})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			storetest.BenchClaimFire(b, s)
		})
	}
}
