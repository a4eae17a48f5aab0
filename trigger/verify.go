package trigger

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// maxDeliveryID bounds a delivery ID (it becomes a store key).
const maxDeliveryID = 256

// refusal is why a delivery's signature was refused: a sentence for the
// sender and the log, without the payload.
type refusal string

// verify checks a delivery's signature and timestamp and returns its
// delivery ID.
func (t *trigger) verify(h http.Header, body []byte, now time.Time) (string, refusal) {
	if t.Scheme == SchemeGitHub {
		return t.verifyGitHub(h, body)
	}
	return t.verifyStandard(h, body, now)
}

// verifyStandard checks Standard Webhooks: one of the space-separated
// "v1,<base64>" signatures must be the HMAC-SHA256 of id.timestamp.body,
// and the timestamp within the tolerance of now.
func (t *trigger) verifyStandard(h http.Header, body []byte, now time.Time) (string, refusal) {
	id, stamp, sigs := h.Get("webhook-id"), h.Get("webhook-timestamp"), h.Get("webhook-signature")
	switch {
	case id == "" || stamp == "" || sigs == "":
		return "", "missing webhook-id, webhook-timestamp or webhook-signature header (Standard Webhooks)"
	case len(id) > maxDeliveryID:
		return "", "webhook-id is longer than 256 bytes"
	}
	secs, err := strconv.ParseInt(stamp, 10, 64)
	if err != nil {
		return "", "webhook-timestamp is not an integer of seconds since 1970"
	}
	mac := hmac.New(sha256.New, t.key)
	mac.Write([]byte(id))
	mac.Write([]byte{'.'})
	mac.Write([]byte(stamp))
	mac.Write([]byte{'.'})
	mac.Write(body)
	want := mac.Sum(nil)
	matched := false
	for _, entry := range strings.Fields(sigs) {
		version, sig, ok := strings.Cut(entry, ",")
		if !ok || version != "v1" {
			continue
		}
		got, err := base64.StdEncoding.DecodeString(sig)
		if err == nil && hmac.Equal(got, want) {
			matched = true
		}
	}
	if !matched {
		return "", "no webhook-signature entry is a valid v1 signature of this delivery"
	}
	at := time.Unix(secs, 0)
	if d := now.Sub(at); d > t.Tolerance || d < -t.Tolerance {
		return "", refusal("webhook-timestamp is more than " + t.Tolerance.String() + " from now (stale or from the future)")
	}
	return id, ""
}

// verifyGitHub checks X-Hub-Signature-256: "sha256=" and the hex
// HMAC-SHA256 of the body; X-GitHub-Delivery is the delivery ID.
func (t *trigger) verifyGitHub(h http.Header, body []byte) (string, refusal) {
	sig, id := h.Get("X-Hub-Signature-256"), h.Get("X-GitHub-Delivery")
	switch {
	case sig == "" && h.Get("X-Hub-Signature") != "":
		return "", "only X-Hub-Signature (SHA-1), which is not accepted: the delivery needs X-Hub-Signature-256"
	case sig == "":
		return "", "missing X-Hub-Signature-256 header (GitHub)"
	case id == "":
		return "", "missing X-GitHub-Delivery header (GitHub)"
	case len(id) > maxDeliveryID:
		return "", "X-GitHub-Delivery is longer than 256 bytes"
	}
	hexSig, ok := strings.CutPrefix(sig, "sha256=")
	got, err := hex.DecodeString(hexSig)
	if !ok || err != nil {
		return "", "X-Hub-Signature-256 is not sha256=<hex>"
	}
	mac := hmac.New(sha256.New, t.key)
	mac.Write(body)
	if !hmac.Equal(got, mac.Sum(nil)) {
		return "", "X-Hub-Signature-256 is not a valid signature of this delivery"
	}
	return id, ""
}

// standardWebhooksKey is the HMAC key of a Standard Webhooks secret: the
// base64 after an optional "whsec_".
func standardWebhooksKey(secret string) ([]byte, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err == nil && len(key) == 0 {
		err = base64.CorruptInputError(0)
	}
	return key, err
}
