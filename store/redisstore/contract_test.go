package redisstore

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/store"
	"github.com/harnest/harnest/store/storetest"
)

// TestContract runs the store contract on the embedded store (miniredis)
// and on a real redis-server, each test under its own key prefix.
func TestContract(t *testing.T) {
	for _, c := range testutil.Stores(t) {
		t.Run(c.Name, func(t *testing.T) {
			storetest.Run(t, contractHarness(c.URL))
		})
	}
}

// contractHarness opens stores on url ("" : embedded). Its Elapse sleeps
// and moves the clock of every embedded store it opened that is still
// open: miniredis expires keys only when its clock is moved.
func contractHarness(url string) storetest.Harness {
	var mu sync.Mutex
	open := map[*Store]bool{}
	return storetest.Harness{
		Open: func(t testing.TB, receiptTTL time.Duration) store.Store {
			s, err := Open(context.Background(), Options{URL: url, KeyPrefix: testutil.Prefix(t), ReceiptTTL: receiptTTL})
			if err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			open[s] = true
			mu.Unlock()
			t.Cleanup(func() {
				mu.Lock()
				delete(open, s)
				mu.Unlock()
				s.Close()
			})
			return s
		},
		Elapse: func(d time.Duration) {
			time.Sleep(d)
			mu.Lock()
			defer mu.Unlock()
			for s := range open {
				if s.embedded != nil {
					s.embedded.FastForward(d)
				}
			}
		},
	}
}
