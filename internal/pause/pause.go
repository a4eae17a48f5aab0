// Package pause waits for a while unless a context ends first: the one
// sleep of backoffs, retries and delays that must stop when their caller
// goes away.
package pause

import (
	"context"
	"time"
)

// For waits d, or until ctx ends: then it returns ctx's error at once.
func For(ctx context.Context, d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
