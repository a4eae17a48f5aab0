package runtime

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strconv"
	"time"

	"github.com/harnest/harnest/store"
)

// Completion webhooks of the neutral API: a background response started
// with a Webhook posts its final receipt (and, with Events, each batch of
// events as it is logged) to the webhook's URL through the outbox, in
// order, at least once. Each POST is signed:
//
//	Harnest-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">
//
// with the caller's webhook key (WebhookKey): derived from the agent's
// shared secret WebhookSecret and the user ID, so a user can verify what is
// sent to them and can forge nothing for another user.

// DeliveryWebhook is the outbox kind of completion webhooks.
const DeliveryWebhook = "webhook"

// WebhookSecret names the agent's shared secret webhook keys derive from.
const WebhookSecret = "webhook-signing"

// Webhook asks for a response's completion to be posted to URL.
type Webhook struct {
	URL string `json:"url"`
	// Events also posts every batch of events as it is logged.
	Events bool `json:"events,omitempty"`
}

// stored is the webhook as the store keeps it with its run
// (store.Begin.Webhook): "" for none.
func (w *Webhook) stored() string {
	if w == nil {
		return ""
	}
	b, _ := json.Marshal(w)
	return string(b)
}

// storedWebhook reads a webhook the store kept with a run; nil for none
// (or one that cannot be read).
func storedWebhook(s string) *Webhook {
	if s == "" {
		return nil
	}
	var w Webhook
	if json.Unmarshal([]byte(s), &w) != nil || w.URL == "" {
		return nil
	}
	return &w
}

// Outbox is where the service puts its webhooks: the store's outbox, which
// the outbox package's Dispatcher sends from. The core only enqueues.
type Outbox interface {
	// CheckURL refuses a URL no delivery could ever reach.
	CheckURL(raw string) error
	// Enqueue stores a delivery, due at once; ErrRateLimited when the
	// user's outbox is full.
	Enqueue(ctx context.Context, d store.Delivery) error
}

// UseOutbox gives the service the outbox its webhooks go through; without
// one, a request with a webhook is refused.
func (s *Service) UseOutbox(o Outbox) { s.outbox = o }

// WebhookKey is the key that signs the webhooks sent for user.
func (s *Service) WebhookKey(ctx context.Context, user string) ([]byte, error) {
	return WebhookKeyOf(ctx, s.store, user)
}

// WebhookKeyOf is the key that signs the webhooks sent for user, derived
// from the agent's shared secret WebhookSecret in st.
func WebhookKeyOf(ctx context.Context, st store.Secrets, user string) ([]byte, error) {
	secret, err := st.SharedSecret(ctx, WebhookSecret)
	if err != nil {
		return nil, err
	}
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("harnest-webhook-key:" + user))
	return m.Sum(nil), nil
}

// WebhookSignature is the Harnest-Signature value of body sent at t.
func WebhookSignature(key []byte, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	m := hmac.New(sha256.New, key)
	m.Write([]byte(ts + "."))
	m.Write(body)
	return "t=" + ts + ",v1=" + hex.EncodeToString(m.Sum(nil))
}

// SignWebhook is the headers that sign a webhook delivery sent at now,
// with its user's key: the outbox's signer of DeliveryWebhook.
func SignWebhook(ctx context.Context, st store.Secrets, d store.Delivery, now time.Time) (map[string]string, error) {
	key, err := WebhookKeyOf(ctx, st, d.User)
	if err != nil {
		return nil, err
	}
	return map[string]string{"Harnest-Signature": WebhookSignature(key, now, d.Body), "Harnest-Delivery-Id": d.ID}, nil
}

// checkWebhook refuses a webhook that cannot be delivered, before anything
// runs.
func (s *Service) checkWebhook(req ResponseRequest) error {
	w := req.Webhook
	if w == nil {
		return nil
	}
	if s.outbox == nil {
		return Errorf(ErrInvalid, "invalid_request", "This server sends no webhooks")
	}
	if !req.Background {
		return Errorf(ErrInvalid, "invalid_request", "A webhook needs \"background\": true")
	}
	if err := s.outbox.CheckURL(w.URL); err != nil {
		return Errorf(ErrInvalid, "invalid_request", "webhook.url %s", err.Error())
	}
	return nil
}

// webhookBatch is the body of an events webhook.
type webhookBatch struct {
	Type       string            `json:"type"`
	ResponseID string            `json:"responseId"`
	SessionID  string            `json:"sessionId"`
	Events     []json.RawMessage `json:"events"`
}

// sendWebhookEvents enqueues a batch of logged events, when the webhook
// asks for them.
func (r *Response) sendWebhookEvents(events []store.Event) {
	if r.webhook == nil || !r.webhook.Events || len(events) == 0 {
		return
	}
	b := webhookBatch{Type: "response.events", ResponseID: r.ID, SessionID: r.SessionID, Events: make([]json.RawMessage, len(events))}
	for i, e := range events {
		b.Events[i] = e.JSON
	}
	body, err := json.Marshal(b)
	if err != nil {
		r.svc.log.Warn("webhook: cannot encode events", "responseId", r.ID, "err", err)
		return
	}
	r.enqueueWebhook(body)
}

// sendWebhook enqueues the final receipt, after the events it ends (when
// the webhook asks for them), once the receipt is recorded (recordErr nil).
func (r *Response) sendWebhook(events []store.Event, receipt []byte, recordErr error) {
	if r.webhook == nil || recordErr != nil {
		return
	}
	r.sendWebhookEvents(events)
	r.enqueueWebhook(receipt)
}

func (r *Response) enqueueWebhook(body []byte) {
	r.svc.enqueueWebhook(r.turn.UserID, r.ID, r.webhook, body)
}

// enqueueWebhook enqueues one delivery of a response's webhook: every
// delivery of a response goes in one queue, so they arrive in order.
func (s *Service) enqueueWebhook(user, responseID string, w *Webhook, body []byte) {
	if s.outbox == nil {
		s.log.Warn("webhook: dropped: this replica sends no webhooks", "responseId", responseID)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), recordTimeout)
	defer cancel()
	d := store.Delivery{ID: "dlv_" + newHex(), User: user, Key: "response/" + responseID, Kind: DeliveryWebhook,
		URL: w.URL, Body: body, Headers: map[string]string{"Harnest-Response-Id": responseID}}
	if err := s.outbox.Enqueue(ctx, d); err != nil {
		var e *Error
		if !errors.As(err, &e) {
			s.log.Warn("webhook: cannot enqueue", "responseId", responseID, "err", err)
			return
		}
		s.log.Warn("webhook: dropped", "responseId", responseID, "reason", e.Detail)
	}
}
