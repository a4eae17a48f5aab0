package outbox

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/harnest/harnest/internal/netguard"
	"github.com/harnest/harnest/store"
)

// outboxRedirects is how many redirects a delivery follows, each to the
// same scheme, host and port as the delivery's URL (its headers carry
// credentials meant for that receiver only), and checked by the guard.
const outboxRedirects = 3

// guardedClient is the dispatcher's HTTP client: the guard's, with
// redirects kept to the delivery's own origin.
func guardedClient(p netguard.Policy, timeout time.Duration) *http.Client {
	p.MaxRedirects = outboxRedirects
	c := netguard.Client(p, timeout)
	guard := c.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if first := via[0].URL; req.URL.Scheme != first.Scheme || req.URL.Host != first.Host {
			return fmt.Errorf("outbox: %s redirects to another origin (%s); deliveries follow redirects within their origin only",
				first.Redacted(), req.URL.Redacted())
		}
		return guard(req, via)
	}
	return c
}

// deliver sends one claimed delivery and records how it went.
func (d *Dispatcher) deliver(ctx context.Context, del store.Delivery) {
	err := d.post(ctx, del)
	if ctx.Err() != nil {
		return // closing: the claim lapses, and another replica sends it
	}
	// Record the outcome even while closing down: a short bound of its own.
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	switch {
	case err == nil:
		if _, cerr := d.st.CompleteDelivery(rctx, del); cerr != nil {
			d.log.Warn("outbox: delivered, but cannot record it (it may be sent again)", "deliveryId", del.ID, "err", cerr)
		}
		// The next delivery of its queue is due now: endFlight wakes the
		// dispatcher.
	case del.Attempts >= d.o.MaxAttempts:
		d.log.Warn("outbox: giving up on a delivery", "deliveryId", del.ID, "kind", del.Kind, "attempts", del.Attempts, "err", err)
		if _, cerr := d.st.CompleteDelivery(rctx, del); cerr != nil {
			d.log.Warn("outbox: cannot drop a dead delivery", "deliveryId", del.ID, "err", cerr)
		}
	default:
		at := d.o.Now().Add(d.o.Backoff(del.Attempts))
		d.log.Info("outbox: delivery failed; will retry", "deliveryId", del.ID, "kind", del.Kind, "attempt", del.Attempts, "retryAt", at, "err", err)
		if _, rerr := d.st.RetryDelivery(rctx, del, at, clipError(err.Error())); rerr != nil {
			d.log.Warn("outbox: cannot reschedule a delivery (its claim will lapse)", "deliveryId", del.ID, "err", rerr)
		}
	}
}

// post makes one attempt: the delivery's headers, its signer's, then the
// POST; a 2xx answer is success.
func (d *Dispatcher) post(ctx context.Context, del store.Delivery) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, del.URL, bytes.NewReader(del.Body))
	if err != nil {
		return fmt.Errorf("outbox: bad delivery URL: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "harnest-outbox")
	for k, v := range del.Headers {
		req.Header.Set(k, v)
	}
	d.mu.Lock()
	sign := d.signers[del.Kind]
	d.mu.Unlock()
	if sign != nil {
		headers, err := sign(ctx, del, d.o.Now())
		if err != nil {
			return fmt.Errorf("outbox: cannot sign the delivery: %w", err)
		}
		for k, v := range headers {
			req.Header.Set(k, v)
		}
	}
	resp, err := d.client.Do(req)
	if err != nil {
		return err
	}
	_, _ = netguard.ReadLimited(resp, d.o.MaxResponseBytes) // its content does not matter
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("outbox: the receiver answered HTTP %d", resp.StatusCode)
	}
	return nil
}

// clipError bounds an error kept with a delivery.
func clipError(s string) string {
	if len(s) > 300 {
		return s[:300] + "..."
	}
	return s
}
