package testutil

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/lestrrat-go/jwx/v3/jwk"
	"github.com/lestrrat-go/jwx/v3/jwt"
)

// VerifyPushJWT checks an A2A push notification as its receiver would: the
// JWT in its A2A-Notification-Signature header verifies with the key set
// jwksJSON (what /.well-known/jwks.json serves), and its
// request_body_sha256 claim is the hex SHA-256 of the body. A JWT that
// does not verify fails the test at once; one that signs another body is
// an error.
func VerifyPushJWT(t testing.TB, jwksJSON []byte, r Request) {
	t.Helper()
	set, err := jwk.Parse(jwksJSON)
	if err != nil {
		t.Fatalf("the served key set does not parse: %v: %s", err, jwksJSON)
	}
	tok, err := jwt.Parse([]byte(r.Header.Get("A2A-Notification-Signature")), jwt.WithKeySet(set), jwt.WithContext(context.Background()))
	if err != nil {
		t.Fatalf("the notification's JWT does not verify with the served JWKS: %v", err)
	}
	var claimed string
	if err := tok.Get("request_body_sha256", &claimed); err != nil {
		t.Fatalf("the JWT has no request_body_sha256: %v", err)
	}
	if sum := sha256.Sum256([]byte(r.Body)); claimed != hex.EncodeToString(sum[:]) {
		t.Errorf("the JWT signs another body: request_body_sha256 %s", claimed)
	}
}

// VerifyWebhookSignature reports whether a webhook's Harnest-Signature
// header ("t=<timestamp>,v1=<hex>") carries the HMAC-SHA256 of
// "<timestamp>.<body>" under key.
func VerifyWebhookSignature(key []byte, r Request) bool {
	var stamp, sig string
	for _, part := range strings.Split(r.Header.Get("Harnest-Signature"), ",") {
		name, value, _ := strings.Cut(part, "=")
		switch name {
		case "t":
			stamp = value
		case "v1":
			sig = value
		}
	}
	if stamp == "" {
		return false
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte(stamp + "." + r.Body))
	return hmac.Equal([]byte(sig), []byte(hex.EncodeToString(m.Sum(nil))))
}
