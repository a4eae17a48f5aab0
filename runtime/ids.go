package runtime

import (
	"crypto/rand"
	"encoding/hex"
	mrand "math/rand/v2"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
)

// newID returns prefix and 32 random hex characters (128 bits), in one
// allocation.
func newID(prefix string) string {
	var b strings.Builder
	b.Grow(len(prefix) + 32)
	b.WriteString(prefix)
	var h [32]byte
	randomHex(h[:])
	b.Write(h[:])
	return b.String()
}

// idSources generate the random bits of IDs: ChaCha8 generators
// (math/rand/v2's cryptographically strong one), each seeded from
// crypto/rand, pooled so that concurrent turns do not share one. A turn
// makes four IDs; crypto/rand costs a system call (or vDSO call) and a DRBG
// step for each.
var idSources = sync.Pool{New: func() any {
	var seed [32]byte
	_, _ = rand.Read(seed[:]) // crypto/rand.Read never fails on Linux
	return mrand.NewChaCha8(seed)
}}

// randomBytes fills b with random bytes from a pooled source.
func randomBytes(b []byte) {
	src := idSources.Get().(*mrand.ChaCha8)
	_, _ = src.Read(b) // never fails
	idSources.Put(src)
}

// randomHex fills h (32 bytes) with the hex of 128 random bits.
func randomHex(h []byte) {
	var raw [16]byte
	randomBytes(raw[:])
	hex.Encode(h, raw[:])
}

// appendMessageID appends a fresh message ID ("msg_" and 32 hex
// characters) to b as a JSON string.
func appendMessageID(b []byte) []byte {
	b = append(b, `"msg_`...)
	n := len(b)
	b = append(b, "0123456789abcdef0123456789abcdef"...)
	randomHex(b[n:])
	return append(b, '"')
}

// newHex returns 32 random hex characters.
func newHex() string { return newID("") }

// NewResponseID returns a fresh response ID: "resp_" and 32 hex characters.
func NewResponseID() string { return newID("resp_") }

// NewSessionID returns a fresh session ID: a version 7 UUID (RFC 9562) as
// 32 hex characters. Its first 48 bits are the Unix time in milliseconds,
// so IDs made later sort later: a user's sessions list in about the order
// they were made (lists are by ID), and a new session's entry in the
// user's index goes in at its end instead of at a random place, where the
// index's path is already in the CPU's cache. The other 74 bits are
// random, as many as a UUID's version 4 has less two.
func NewSessionID() string { return newSessionIDAt(time.Now()) }

// newSessionIDAt is NewSessionID at the time t.
func newSessionIDAt(t time.Time) string {
	var raw [16]byte
	ms := uint64(t.UnixMilli())
	for i := range 6 {
		raw[i] = byte(ms >> (40 - 8*i))
	}
	randomBytes(raw[6:])
	raw[6] = 0x70 | raw[6]&0x0f // version 7
	raw[8] = 0x80 | raw[8]&0x3f // the RFC 9562 variant
	var h [32]byte
	hex.Encode(h[:], raw[:])
	return string(h[:])
}

// timestampLayout is ISO-8601 in UTC with microseconds and an explicit
// offset.
const timestampLayout = "2006-01-02T15:04:05.000000+00:00"

// timestamp formats a time as timestampLayout, in one allocation (on the
// turn path several times per turn; time.Format parses its layout each
// time).
func timestamp(t time.Time) string {
	t = t.UTC()
	year, month, day := t.Date()
	hour, min, sec := t.Clock()
	if year < 0 || year > 9999 {
		return t.Format(timestampLayout)
	}
	var b [32]byte
	digits(b[0:4], year)
	b[4] = '-'
	digits(b[5:7], int(month))
	b[7] = '-'
	digits(b[8:10], day)
	b[10] = 'T'
	digits(b[11:13], hour)
	b[13] = ':'
	digits(b[14:16], min)
	b[16] = ':'
	digits(b[17:19], sec)
	b[19] = '.'
	digits(b[20:26], t.Nanosecond()/1000)
	copy(b[26:], "+00:00")
	return string(b[:])
}

// digits writes n in decimal into all of b, zero-padded.
func digits(b []byte, n int) {
	for i := len(b) - 1; i >= 0; i-- {
		b[i] = byte('0' + n%10)
		n /= 10
	}
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
