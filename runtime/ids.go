package runtime

import (
	"crypto/rand"
	"encoding/hex"
	"time"
	"unicode"
	"unicode/utf8"
)

// newHex returns 32 random hex characters (128 bits).
func newHex() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on Linux
	return hex.EncodeToString(b[:])
}

// NewResponseID returns a fresh response ID: "resp_" and 32 hex characters.
func NewResponseID() string { return "resp_" + newHex() }

// NewSessionID returns a fresh session ID of 32 hex characters.
func NewSessionID() string { return newHex() }

func newMessageID() string { return "msg_" + newHex() }

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
