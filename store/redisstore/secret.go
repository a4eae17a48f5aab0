package redisstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/harnest/harnest/store"

	"github.com/redis/go-redis/v9"
)

// SharedSecret returns the secret named name, the same for every replica
// that shares this store and key prefix: it reads <prefix>secret:<name>,
// and when the key does not exist yet it offers 32 random bytes with
// SET NX and reads back whichever offer won, so replicas that start
// together still agree. The key is a single key (Cluster-safe) without a
// TTL; deleting it makes a new secret, which invalidates whatever was
// sealed with the old one.
func (s *Store) SharedSecret(ctx context.Context, name string) ([]byte, error) {
	rdb, prefix := s.rdb, s.prefix
	if name == "" {
		return nil, errors.New("store: a shared secret needs a name")
	}
	key := prefix + "secret:" + escapeID(name)
	if b, found, err := readSecret(ctx, rdb, key); err != nil || found {
		return b, err
	}
	fresh := make([]byte, store.SecretSize)
	if _, err := rand.Read(fresh); err != nil {
		return nil, fmt.Errorf("store: make shared secret %q: %w", name, err)
	}
	if err := rdb.SetNX(ctx, key, hex.EncodeToString(fresh), 0).Err(); err != nil {
		return nil, fmt.Errorf("store: create shared secret %q: %w", name, err)
	}
	// Read back: another replica's SET NX may have won.
	b, found, err := readSecret(ctx, rdb, key)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, fmt.Errorf("store: shared secret %q vanished right after it was created (was %s deleted meanwhile?); retry", name, key)
	}
	return b, nil
}

// readSecret reads a stored secret: 64 hex digits.
func readSecret(ctx context.Context, rdb redis.UniversalClient, key string) ([]byte, bool, error) {
	v, err := rdb.Get(ctx, key).Result()
	if errors.Is(err, redis.Nil) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("store: read shared secret %s: %w", key, err)
	}
	b, err := hex.DecodeString(v)
	if err != nil || len(b) != store.SecretSize {
		return nil, false, fmt.Errorf("store: shared secret %s is not %d hex-encoded bytes; delete the key to have a new one made (what it sealed becomes invalid)", key, store.SecretSize)
	}
	return b, true, nil
}
