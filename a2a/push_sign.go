package a2a

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jwk"
	"github.com/lestrrat-go/jwx/v3/jws"
	"github.com/lestrrat-go/jwx/v3/jwt"

	"github.com/harnest/harnest/internal/httpapi"
	"github.com/harnest/harnest/store"
)

// Signing push notifications, as the A2A push notification guide
// describes: every notification carries a short-lived JWT (ES256, with a
// kid) whose claims hold the SHA-256 of the body (request_body_sha256), so
// that a receiver that fetches the agent's key set from
// /.well-known/jwks.json can check who sent it and that the body is the one
// signed. The P-256 key is derived from a shared secret of the store, so
// every replica signs with the same key and serves the same key set.

// PushSigningSecret names the shared secret the signing key derives from.
const PushSigningSecret = "a2a-push-signing"

// PushSignatureHeader carries the JWT (also sent as a Bearer token when the
// config has no authentication of its own).
const PushSignatureHeader = "A2A-Notification-Signature"

// pushJWTLifetime is how long a notification's JWT is valid.
const pushJWTLifetime = 5 * time.Minute

// pushKeys is the signing key, made once from the shared secret.
type pushKeys struct {
	st store.Secrets

	mu   sync.Mutex
	key  *ecdsa.PrivateKey
	kid  string
	jwks []byte
}

func newPushKeys(st store.Secrets) *pushKeys { return &pushKeys{st: st} }

// load derives the key on first use.
func (k *pushKeys) load(ctx context.Context) (*ecdsa.PrivateKey, string, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.key != nil {
		return k.key, k.kid, nil
	}
	secret, err := k.st.SharedSecret(ctx, PushSigningSecret)
	if err != nil {
		return nil, "", fmt.Errorf("a2a: read the push signing secret: %w", err)
	}
	key, err := p256From(secret)
	if err != nil {
		return nil, "", err
	}
	pub, err := key.PublicKey.Bytes()
	if err != nil {
		return nil, "", fmt.Errorf("a2a: encode the push signing key: %w", err)
	}
	sum := sha256.Sum256(pub)
	kid := "harnest-push-" + hex.EncodeToString(sum[:8])
	set, err := jwksOf(&key.PublicKey, kid)
	if err != nil {
		return nil, "", err
	}
	k.key, k.kid, k.jwks = key, kid, set
	return key, kid, nil
}

// p256From makes a P-256 private key from a secret: its scalar is the
// secret, or (in the rare case that is out of range) its hash, hashed
// again until it is in range.
func p256From(secret []byte) (*ecdsa.PrivateKey, error) {
	scalar := secret
	for range 16 {
		if key, err := ecdsa.ParseRawPrivateKey(elliptic.P256(), scalar); err == nil {
			return key, nil
		}
		sum := sha256.Sum256(scalar)
		scalar = sum[:]
	}
	return nil, fmt.Errorf("a2a: cannot derive a P-256 key from the push signing secret")
}

// jwksOf is the JSON key set holding the public key.
func jwksOf(pub *ecdsa.PublicKey, kid string) ([]byte, error) {
	k, err := jwk.Import(pub)
	if err == nil {
		err = k.Set(jwk.KeyIDKey, kid)
	}
	if err == nil {
		err = k.Set(jwk.AlgorithmKey, jwa.ES256())
	}
	if err == nil {
		err = k.Set(jwk.KeyUsageKey, "sig")
	}
	if err != nil {
		return nil, fmt.Errorf("a2a: build the push key set: %w", err)
	}
	set := jwk.NewSet()
	if err := set.AddKey(k); err != nil {
		return nil, fmt.Errorf("a2a: build the push key set: %w", err)
	}
	return json.Marshal(set)
}

// sign is the outbox signer of push notifications.
func (k *pushKeys) sign(ctx context.Context, d store.Delivery, now time.Time) (map[string]string, error) {
	key, kid, err := k.load(ctx)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(d.Body)
	tok, err := jwt.NewBuilder().IssuedAt(now).Expiration(now.Add(pushJWTLifetime)).JwtID(d.ID).
		Claim("request_body_sha256", hex.EncodeToString(sum[:])).Build()
	if err != nil {
		return nil, fmt.Errorf("a2a: build the push JWT: %w", err)
	}
	hdr := jws.NewHeaders()
	if err := hdr.Set(jws.KeyIDKey, kid); err != nil {
		return nil, err
	}
	if err := hdr.Set(jws.TypeKey, "JWT"); err != nil {
		return nil, err
	}
	signed, err := jwt.Sign(tok, jwt.WithKey(jwa.ES256(), key, jws.WithProtectedHeaders(hdr)))
	if err != nil {
		return nil, fmt.Errorf("a2a: sign the push JWT: %w", err)
	}
	out := map[string]string{PushSignatureHeader: string(signed)}
	if _, has := d.Headers["Authorization"]; !has {
		out["Authorization"] = "Bearer " + string(signed)
	}
	return out, nil
}

// jwksHandler serves the key set push notifications are signed with.
func (k *pushKeys) jwksHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, _, err := k.load(r.Context()); err != nil {
			httpapi.Fail(w, http.StatusServiceUnavailable, "store_unavailable", "The key set is unavailable; retry shortly")
			return
		}
		k.mu.Lock()
		b := k.jwks
		k.mu.Unlock()
		w.Header().Set("Content-Type", "application/jwk-set+json")
		w.Header().Set("Cache-Control", "public, max-age=300")
		_, _ = w.Write(b)
	})
}
