package redisstore

import (
	"context"
	"strconv"
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

// BenchmarkJournalStep is the store's share of one step of a turn with a
// resume point and without (storetest.BenchJournalStep), on the embedded
// miniredis and on a real redis-server.
func BenchmarkJournalStep(b *testing.B) {
	for _, c := range testutil.Stores(b) {
		for _, point := range []bool{false, true} {
			b.Run(c.Name+"/point="+strconv.FormatBool(point), func(b *testing.B) {
				s, err := Open(context.Background(), Options{URL: c.URL, KeyPrefix: testutil.Prefix(b)})
				if err != nil {
					b.Fatal(err)
				}
				defer s.Close()
				storetest.BenchJournalStep(b, s, point)
			})
		}
	}
}
