package runtime

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
)

// Every cursor and page token the server issues is sealed: AES-256-GCM
// with a random nonce, written as URL-safe base64 without padding
// (nonce || ciphertext || tag). The plaintext is compact JSON that names
// the token's format version, kind and user, and carries the position:
//
//	{"v":1,"k":"sessions","u":"<user>","d":{...}}
//
// A token opens only with the key, for the kind and user it was issued
// to; another user's or kind's token, a tampered, truncated or foreign
// one (the old unsealed base64 JSON included) is refused exactly like a
// malformed one. Clients cannot read where a page ends, and cannot forge
// a position.
//
// The key is the store's shared secret TokenSecret (store.SharedSecret),
// so every replica on the same Redis and key prefix opens every other
// replica's tokens.

// tokenVersion is the sealed plaintext's format version.
const tokenVersion = 1

// TokenSecret names the store's shared secret (store.SharedSecret) that
// seals every token the server issues.
const TokenSecret = "cursors"

// TokenSealer seals and opens tokens with a key it loads on first use and
// then keeps. A failed load (the store is unreachable) is not kept: the
// next use tries again.
type TokenSealer struct {
	secret func(ctx context.Context) ([]byte, error)

	mu   sync.Mutex
	aead cipher.AEAD
}

// NewTokenSealer makes a sealer whose key is what secret returns (32
// bytes, an AES-256 key), asked on first use: for example
// func(ctx) { return st.SharedSecret(ctx, runtime.TokenSecret) }.
func NewTokenSealer(secret func(ctx context.Context) ([]byte, error)) *TokenSealer {
	return &TokenSealer{secret: secret}
}

// cipher returns the AEAD, loading the key when it is not loaded yet.
func (t *TokenSealer) cipher(ctx context.Context) (cipher.AEAD, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.aead != nil {
		return t.aead, nil
	}
	key, err := t.secret(ctx)
	if err != nil {
		return nil, fmt.Errorf("runtime: load the token key: %w", err)
	}
	if len(key) != 32 {
		return nil, fmt.Errorf("runtime: the token key is %d bytes; AES-256 needs 32", len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("runtime: token key: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("runtime: token cipher: %w", err)
	}
	t.aead = aead
	return aead, nil
}

// sealed is a token's plaintext.
type sealed struct {
	Version int             `json:"v"`
	Kind    string          `json:"k"`
	User    string          `json:"u"`
	Data    json.RawMessage `json:"d"`
}

// SealToken seals v (encoded as JSON) into a token of the kind, for the
// user. The error is the key's: the store could not be reached.
func (t *TokenSealer) SealToken(ctx context.Context, kind, user string, v any) (string, error) {
	if kind == "" {
		return "", errors.New("runtime: a token needs a kind")
	}
	data, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("runtime: encode %s token: %w", kind, err)
	}
	plain, err := json.Marshal(sealed{Version: tokenVersion, Kind: kind, User: user, Data: data})
	if err != nil {
		return "", fmt.Errorf("runtime: encode %s token: %w", kind, err)
	}
	aead, err := t.cipher(ctx)
	if err != nil {
		return "", err
	}
	nonce := make([]byte, aead.NonceSize(), aead.NonceSize()+len(plain)+aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return "", fmt.Errorf("runtime: token nonce: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(aead.Seal(nonce, nonce, plain, nil)), nil
}

// OpenToken opens a token of the kind issued to the user and decodes its
// content into v. ok is false for every token that is not exactly that:
// malformed, tampered, truncated, foreign, of another kind or user. err
// is set only when the key could not be loaded (the store is
// unreachable); then ok is false too.
func (t *TokenSealer) OpenToken(ctx context.Context, token, kind, user string, v any) (ok bool, err error) {
	raw, decErr := base64.RawURLEncoding.Strict().DecodeString(token)
	if decErr != nil || token == "" {
		return false, nil
	}
	aead, err := t.cipher(ctx)
	if err != nil {
		return false, err
	}
	if len(raw) < aead.NonceSize()+aead.Overhead() {
		return false, nil
	}
	plain, openErr := aead.Open(nil, raw[:aead.NonceSize()], raw[aead.NonceSize():], nil)
	if openErr != nil {
		return false, nil
	}
	var s sealed
	if json.Unmarshal(plain, &s) != nil || s.Version != tokenVersion || s.Kind != kind || s.User != user || len(s.Data) == 0 {
		return false, nil
	}
	return json.Unmarshal(s.Data, v) == nil, nil
}

// SealToken seals v into an opaque token of the kind, for the user, with
// the key every replica shares: transports use it for the cursors they
// issue (A2A page tokens: kind "a2a.tasks"). The error means the store is
// unreachable.
func (s *Service) SealToken(ctx context.Context, kind, user string, v any) (string, error) {
	return s.tokens.SealToken(ctx, kind, user, v)
}

// OpenToken opens a token SealToken issued for the kind and user into v;
// ok is false for any other token (refuse it like a malformed one). err is
// set only when the store is unreachable.
func (s *Service) OpenToken(ctx context.Context, token, kind, user string, v any) (ok bool, err error) {
	return s.tokens.OpenToken(ctx, token, kind, user, v)
}
