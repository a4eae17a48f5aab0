package runtime

import (
	"crypto/rand"
	"encoding/hex"
	"time"
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
