// Package storetest is the store contract: one suite of tests that every
// store.Store implementation passes (memstore, redisstore on miniredis,
// redisstore on a real redis-server).
package storetest

import (
	"testing"
	"time"

	"github.com/harnest/harnest/runtime/store"
)

// Harness opens stores of one implementation for the suite.
type Harness struct {
	// Open returns a fresh, empty store whose receipts (and what lasts as
	// long as receipts) are kept for receiptTTL (0: the default); it is
	// closed when the test ends.
	Open func(t testing.TB, receiptTTL time.Duration) store.Store
	// Elapse lets d pass for the store's expiry (it sleeps d; miniredis
	// also needs its clock moved).
	Elapse func(d time.Duration)
}

// Run runs every contract test against the implementation.
func Run(t *testing.T, h Harness) {
	t.Run("Tasks", func(t *testing.T) { testTasks(t, h) })
	t.Run("Threads", func(t *testing.T) { testThreads(t, h) })
	t.Run("Relay", func(t *testing.T) { testRelay(t, h) })
}
