package store

import "context"

// Secrets are keys every replica that shares the store agrees on. They are
// shared: the core signs webhooks with one (runtime), the A2A door its push
// notifications (a2a) and the relay its tokens (relay).
type Secrets interface {
	// SharedSecret returns the SecretSize-byte secret named name, made on
	// first use; replicas that ask together get the same one.
	SharedSecret(ctx context.Context, name string) ([]byte, error)
}

// SecretSize is the length in bytes of a shared secret (an AES-256 key).
const SecretSize = 32
