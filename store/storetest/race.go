package storetest

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
)

// raceWins runs try(0), ..., try(n-1) at once and counts the tries that
// won. A try's error fails the test: a try that lost as the contract
// says returns no win and no error (see wonUnless).
func raceWins(t *testing.T, n int, try func(i int) (won bool, err error)) int {
	t.Helper()
	var wins atomic.Int32
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			won, err := try(i)
			if err != nil {
				t.Error(err)
			} else if won {
				wins.Add(1)
			}
		})
	}
	wg.Wait()
	return int(wins.Load())
}

// wonUnless is a racing try's outcome from its error: a win on nil, a
// loss on refusal (the error a loser gets), and any other error as it is.
func wonUnless(err, refusal error) (bool, error) {
	if errors.Is(err, refusal) {
		return false, nil
	}
	return err == nil, err
}
