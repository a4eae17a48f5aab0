package runtime

// CheckWebhook checks a webhook as a background response would (the
// server sends webhooks; the address guard allows the URL), for a caller
// that keeps it to start responses later (a schedule): nil when it may be
// used, else an ErrInvalid error naming webhook.url.
func (s *Service) CheckWebhook(w *Webhook) error {
	return s.checkWebhook(ResponseRequest{Webhook: w, Background: true})
}
