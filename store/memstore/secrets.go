package memstore

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"sync"

	"github.com/harnest/harnest/store"
)

// secretTable holds the shared secrets by name.
type secretTable struct {
	mu      sync.Mutex
	secrets map[string][]byte
}

// SharedSecret returns the secret named name: store.SecretSize random
// bytes made on its first use, the same for every replica that shares this
// store, for as long as the process lives. The slice is the caller's.
func (s *Store) SharedSecret(ctx context.Context, name string) ([]byte, error) {
	if err := s.closed.check(); err != nil {
		return nil, err
	}
	if name == "" {
		return nil, errors.New("store: a shared secret needs a name")
	}
	s.secrets.mu.Lock()
	defer s.secrets.mu.Unlock()
	b, ok := s.secrets.secrets[name]
	if !ok {
		b = make([]byte, store.SecretSize)
		if _, err := rand.Read(b); err != nil {
			return nil, fmt.Errorf("store: make shared secret %q: %w", name, err)
		}
		s.secrets.secrets[name] = b
	}
	return copyBytes(b), nil
}
