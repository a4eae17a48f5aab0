package neutral

import (
	"encoding/hex"
	"encoding/json"
	"net/http"

	"github.com/harnest/harnest/internal/auth"
	"github.com/harnest/harnest/runtime"
)

// Completion webhooks: a background POST /responses may name
// "webhook": {"url": ..., "events"?: bool}. The final receipt (and with
// events, each batch of events) is posted there, signed with
// Harnest-Signature (runtime/webhook.go); GET /webhook-key gives the caller
// the key that signs what is sent for them.

// webhookField reads the optional "webhook" member: {"url": string,
// "events"?: bool}, nothing else. Whether the URL may be reached is the
// runtime's to check (before anything runs).
func webhookField(obj map[string]json.RawMessage) (*runtime.Webhook, error) {
	members, ok, err := objectMembers(obj, "webhook")
	if !ok || err != nil {
		return nil, err
	}
	if err := onlyKeys(members, "url", "events"); err != nil {
		return nil, fieldError{"webhook", "may hold only url and events"}
	}
	url, has, err := stringField(members, "url")
	if err != nil || !has || url == "" {
		return nil, fieldError{"webhook.url", "is required: an absolute https URL"}
	}
	events, err := boolField(members, "events")
	if err != nil {
		return nil, fieldError{"webhook.events", "must be a boolean"}
	}
	return &runtime.Webhook{URL: url, Events: events}, nil
}

// webhookKey answers GET /webhook-key: the caller's signing key, hex.
func (a *API) webhookKey(w http.ResponseWriter, r *http.Request) {
	key, err := a.svc.WebhookKey(r.Context(), auth.From(r.Context()).UserID)
	if err != nil {
		fail(w, http.StatusServiceUnavailable, "store_unavailable", "The state store is unavailable; retry shortly")
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"key": hex.EncodeToString(key), "algorithm": "HMAC-SHA256",
		"header": "Harnest-Signature", "signs": "<t>.<body>"})
}
