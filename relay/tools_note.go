package relay

import (
	"context"
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

// runNote is what a run note says.
type runNote struct {
	Participant string `json:"p"`
	Item        string `json:"i"`
	ExpiresMS   int64  `json:"e"`
}

// Why a run note is refused.
var (
	errNoteInvalid = errors.New("the run note is not one this server signed")
	errNoteExpired = errors.New("the run note has expired")
)

// itemCallback is an inbox item's "callback" member.
type itemCallback struct {
	RunNote string `json:"run_note"`
}

// signRunNote signs a note for one item of a participant, valid
// RunNoteTTL from when it was asked (so every poll hands out the same
// note).
func signRunNote(key []byte, participant string, it store.RelayItem) string {
	n := runNote{Participant: participant, Item: it.ID, ExpiresMS: it.AskedAt.Add(RunNoteTTL).UnixMilli()}
	b, _ := json.Marshal(n)
	payload := runNotePrefix + base64.RawURLEncoding.EncodeToString(b)
	return payload + "." + base64.RawURLEncoding.EncodeToString(noteMAC(key, payload))
}

func noteMAC(key []byte, payload string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(payload))
	return m.Sum(nil)
}

// verifyRunNote checks a note's signature, that it is the participant's
// and that it has not expired by now, and returns what it says.
func verifyRunNote(key []byte, note, participant string, now time.Time) (runNote, error) {
	if len(note) > 1024 || !strings.HasPrefix(note, runNotePrefix) {
		return runNote{}, errNoteInvalid
	}
	payload, sig, ok := strings.Cut(note, ".")
	if !ok {
		return runNote{}, errNoteInvalid
	}
	body, sig, ok := strings.Cut(sig, ".")
	if !ok {
		return runNote{}, errNoteInvalid
	}
	payload += "." + body
	mac, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil || !hmac.Equal(mac, noteMAC(key, payload)) {
		return runNote{}, errNoteInvalid
	}
	raw, err := base64.RawURLEncoding.DecodeString(body)
	var n runNote
	if err != nil || json.Unmarshal(raw, &n) != nil || n.Participant != participant || n.Item == "" {
		return runNote{}, errNoteInvalid
	}
	if now.UnixMilli() >= n.ExpiresMS {
		return runNote{}, errNoteExpired
	}
	return n, nil
}

// itemCallbackFor is the callback member of an inbox item: nil while tools
// at home are off.
func (r *Relay) itemCallbackFor(ctx context.Context, p store.RelayParticipant, it store.RelayItem) (*itemCallback, error) {
	if r.home == nil {
		return nil, nil
	}
	key, err := r.home.noteKey(ctx)
	if err != nil {
		return nil, err
	}
	return &itemCallback{RunNote: signRunNote(key, p.ID, it)}, nil
}

// newCallbackToken returns a callback token: 32 random bytes, URL-safe.
func newCallbackToken() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return CallbackPrefix + hex.EncodeToString(b[:])
}

// issueCallback gives a just-paired participant its callback token ("" while
// tools at home are off), kept hashed as long as the participant. The
// owner's other participants of the same name and kind are the same agent
// paired before: pairing again ends their callback tokens.
func (r *Relay) issueCallback(ctx context.Context, p store.RelayParticipant) (string, error) {
	if r.home == nil {
		return "", nil
	}
	now := r.now()
	others, err := r.st.ListParticipants(ctx, p.Owner, now)
	if err != nil {
		return "", err
	}
	for _, o := range others {
		if o.ID != p.ID && o.Name == p.Name && o.Kind == p.Kind {
			if err := r.home.st.EndRelayCallback(ctx, p.Owner, o.ID); err != nil {
				return "", err
			}
		}
	}
	token := newCallbackToken()
	err = r.home.st.PutRelayCallback(ctx, store.RelayCallback{TokenHash: hashSecret(token), Owner: p.Owner,
		Participant: p.ID, ExpiresAt: p.ExpiresAt}, now)
	if err != nil {
		return "", err
	}
	return token, nil
}

// EndCallback ends a participant's callback token: pausing it does (the
// owner's pause route calls this), as disconnecting and pairing again do.
func (r *Relay) EndCallback(ctx context.Context, owner, participant string) error {
	if r.home == nil {
		return nil
	}
	return r.home.st.EndRelayCallback(ctx, owner, participant)
}
