package runtime

import "context"

// gate admits at most N runs at once, shared by every transport. Runs queue
// until admitted or until their context ends.
type gate chan struct{}

func newGate(n int) gate {
	if n < 1 {
		n = 1
	}
	return make(gate, n)
}

// acquire waits for a slot; the returned function frees it.
func (g gate) acquire(ctx context.Context) (func(), error) {
	select {
	case g <- struct{}{}:
		return func() { <-g }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
