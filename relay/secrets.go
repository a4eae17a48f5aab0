package relay

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// hashSecret is how codes and session tokens reach the store: never in the
// clear, only as the hex SHA-256 of the secret.
func hashSecret(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// newUUID returns a random (version 4) UUID: a participant or item ID.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// newToken returns a session token: 32 random bytes, URL-safe.
func newToken() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return "hrn_" + hex.EncodeToString(b[:])
}

// codeAlphabet has no look-alike characters (no 0/O, 1/I/L).
const codeAlphabet = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"

// newCode returns a pairing code such as "K7QM-X2PA-9RTW".
func newCode() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	var sb strings.Builder
	for i, c := range b {
		if i > 0 && i%4 == 0 {
			sb.WriteByte('-')
		}
		sb.WriteByte(codeAlphabet[int(c)%len(codeAlphabet)])
	}
	return sb.String()
}

// codeHash is the store's key of a typed pairing code: upper case, no
// spaces, hashed.
func codeHash(code string) string {
	return hashSecret(strings.ToUpper(strings.Join(strings.Fields(code), "")))
}
