package tools

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/harnest/harnest/store"
)

// A run note lets one run (the work on one inbox item) call tools: it
// names the participant and the item and when it expires, signed with
// HMAC-SHA256 under the store's shared key, so any replica verifies it.
// Its form is "rn1.<payload>.<signature>", both base64url without padding.

const runNotePrefix = "rn1."

// RunNote is what a run note says.
type RunNote struct {
	Participant string `json:"p"`
	Item        string `json:"i"`
	ExpiresMS   int64  `json:"e"`
}

// Why a run note is refused.
var (
	ErrNoteInvalid = errors.New("the run note is not one this server signed")
	ErrNoteExpired = errors.New("the run note has expired")
)

// SignRunNote signs a note for one item of a participant, valid
// RunNoteTTL from when it was asked (so every poll hands out the same
// note).
func SignRunNote(key []byte, participant string, it store.RelayItem) string {
	n := RunNote{Participant: participant, Item: it.ID, ExpiresMS: it.AskedAt.Add(RunNoteTTL).UnixMilli()}
	b, _ := json.Marshal(n)
	payload := runNotePrefix + base64.RawURLEncoding.EncodeToString(b)
	return payload + "." + base64.RawURLEncoding.EncodeToString(noteMAC(key, payload))
}

func noteMAC(key []byte, payload string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(payload))
	return m.Sum(nil)
}

// VerifyRunNote checks a note's signature, that it is the participant's
// and that it has not expired by now, and returns what it says.
func VerifyRunNote(key []byte, note, participant string, now time.Time) (RunNote, error) {
	if len(note) > 1024 || !strings.HasPrefix(note, runNotePrefix) {
		return RunNote{}, ErrNoteInvalid
	}
	payload, sig, ok := strings.Cut(note, ".")
	if !ok {
		return RunNote{}, ErrNoteInvalid
	}
	body, sig, ok := strings.Cut(sig, ".")
	if !ok {
		return RunNote{}, ErrNoteInvalid
	}
	payload += "." + body
	mac, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil || !hmac.Equal(mac, noteMAC(key, payload)) {
		return RunNote{}, ErrNoteInvalid
	}
	raw, err := base64.RawURLEncoding.DecodeString(body)
	var n RunNote
	if err != nil || json.Unmarshal(raw, &n) != nil || n.Participant != participant || n.Item == "" {
		return RunNote{}, ErrNoteInvalid
	}
	if now.UnixMilli() >= n.ExpiresMS {
		return RunNote{}, ErrNoteExpired
	}
	return n, nil
}

// NewCallbackToken returns a callback token: 32 random bytes, URL-safe.
func NewCallbackToken() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return CallbackPrefix + hex.EncodeToString(b[:])
}
