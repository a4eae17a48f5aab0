package runtime

import (
	"crypto/rand"
	"encoding/hex"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// newID returns prefix and 32 random hex characters (128 bits), in one
// allocation.
func newID(prefix string) string {
	var raw [16]byte
	_, _ = rand.Read(raw[:]) // crypto/rand.Read never fails on Linux
	var b strings.Builder
	b.Grow(len(prefix) + 32)
	b.WriteString(prefix)
	var h [32]byte
	hex.Encode(h[:], raw[:])
	b.Write(h[:])
	return b.String()
}

// newHex returns 32 random hex characters.
func newHex() string { return newID("") }

// NewResponseID returns a fresh response ID: "resp_" and 32 hex characters.
func NewResponseID() string { return newID("resp_") }

// NewSessionID returns a fresh session ID of 32 hex characters.
func NewSessionID() string { return newID("") }

func newMessageID() string { return newID("msg_") }

// timestamp formats a time as ISO-8601 in UTC with an explicit offset.
func timestamp(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000000+00:00")
}

// MaxSessionIDLength is the longest session ID a caller may choose, in bytes.
const MaxSessionIDLength = 128

// validSessionID reports whether a caller-chosen session ID is acceptable:
// 1 to MaxSessionIDLength bytes of UTF-8, each character visible (no
// spaces, control characters, or invisible formatting such as bidi
// overrides).
func validSessionID(id string) bool {
	if id == "" || len(id) > MaxSessionIDLength || !utf8.ValidString(id) {
		return false
	}
	for _, r := range id {
		if !unicode.IsGraphic(r) || unicode.IsSpace(r) || unicode.Is(unicode.Cf, r) {
			return false
		}
	}
	return true
}

// errInvalidSessionID refuses a session ID a caller chose for a new session.
var errInvalidSessionID = Errorf(ErrInvalid, "invalid_session",
	"A session ID is 1 to %d visible characters, without spaces or control characters", MaxSessionIDLength)
