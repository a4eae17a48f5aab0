package storetest

import (
	"bytes"
	"sync"
	"testing"

	"github.com/harnest/harnest/store"
)

// testSecrets is the contract of shared secrets: SecretSize random bytes
// made on first use, the same for everyone who asks afterwards or at the
// same time, one per name.
func testSecrets(t *testing.T, h Harness) {
	s := open(t, h)
	a, err := s.SharedSecret(ctx, "tokens")
	if err != nil || len(a) != store.SecretSize {
		t.Fatalf("secret: %d bytes, %v", len(a), err)
	}
	if bytes.Equal(a, make([]byte, store.SecretSize)) {
		t.Fatal("the secret is all zeros")
	}
	again, err := s.SharedSecret(ctx, "tokens")
	if err != nil || !bytes.Equal(a, again) {
		t.Fatalf("asked again: %x, want %x (%v)", again, a, err)
	}
	again[0] ^= 0xff // the caller's copy
	if b, _ := s.SharedSecret(ctx, "tokens"); !bytes.Equal(a, b) {
		t.Fatal("changing a returned secret changed the stored one")
	}
	other, err := s.SharedSecret(ctx, "other")
	if err != nil || bytes.Equal(a, other) {
		t.Fatalf("two names share a secret: %v", err)
	}
	if _, err := s.SharedSecret(ctx, ""); err == nil {
		t.Fatal("a secret without a name")
	}
	// Replicas asking together for a new secret agree on it.
	const askers = 8
	got := make([][]byte, askers)
	var wg sync.WaitGroup
	for i := range askers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, err := s.SharedSecret(ctx, "together")
			if err != nil {
				t.Error(err)
			}
			got[i] = b
		}()
	}
	wg.Wait()
	for i := 1; i < askers; i++ {
		if !bytes.Equal(got[i], got[0]) {
			t.Fatalf("asker %d got %x, asker 0 got %x", i, got[i], got[0])
		}
	}
}
