package pause

import (
	"context"
	"testing"
	"time"
)

func TestForWaitsOrStopsWithItsContext(t *testing.T) {
	if err := For(context.Background(), time.Millisecond); err != nil {
		t.Fatalf("a full wait: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	done := make(chan error, 1)
	go func() { done <- For(ctx, time.Hour) }()
	select {
	case err := <-done:
		if err != context.Canceled {
			t.Fatalf("a cancelled wait: %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a cancelled wait did not return")
	}
}
