package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The relay side of "harnest connect": pairing, notices, the poll loop and
// replies, all through one http.Client whose connection is kept alive
// between calls. Calls never overlap: the loop polls, answers the items it
// got one after another, replies, then polls again.

// newRelayClient is the connector's one HTTP client: its own transport
// keeps the idle connection, so that every poll and reply reuses it; the
// timeout is above the long-poll wait.
func newRelayClient(wait int) *http.Client {
	transport := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          2,
		MaxIdleConnsPerHost:   2,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
	return &http.Client{Transport: transport, Timeout: time.Duration(wait)*time.Second + 15*time.Second}
}

// call sends one request to the relay and decodes a JSON answer. The body
// is read to its end (up to a bound) and closed, so that the connection
// goes back to the client for the next call.
func (c *connector) call(ctx context.Context, method, path string, body any, out any) (int, http.Header, []byte, error) {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return 0, nil, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, connectMaxOutput))
	// Whatever is left (an answer past the bound) is drained, bounded too:
	// a body read to its end lets the connection be reused.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, connectMaxOutput))
	if err != nil {
		return 0, nil, nil, err
	}
	if out != nil && resp.StatusCode < 300 {
		if err := json.Unmarshal(raw, out); err != nil {
			return resp.StatusCode, resp.Header, raw, fmt.Errorf("unreadable answer from the server: %w", err)
		}
	}
	return resp.StatusCode, resp.Header, raw, nil
}

func (c *connector) exchange(ctx context.Context, code string) int {
	var v struct {
		Token         string `json:"token"`
		ParticipantID string `json:"participant_id"`
		ExpiresAt     string `json:"expires_at"`
		exchangeTools        // callback_token, only with tools at home
	}
	card := map[string]any{"name": c.name, "kind": c.kind, "description": "harnest connect"}
	status, _, raw, err := c.call(ctx, "POST", "/api/outside-agents/v1/pairings/exchange", map[string]any{"code": code, "card": card}, &v)
	if err != nil {
		fmt.Fprintln(c.stderr, "harnest connect: pairing failed:", err)
		return 1
	}
	if status != http.StatusCreated || v.Token == "" {
		fmt.Fprintf(c.stderr, "harnest connect: pairing failed (%d): %s\n", status, detailOf(raw))
		return 1
	}
	c.token, c.callbackToken = v.Token, v.CallbackToken
	fmt.Fprintf(c.stderr, "Paired as participant %s; the session lasts until %s.\n", v.ParticipantID, v.ExpiresAt)
	return 0
}

func (c *connector) sendNotice(ctx context.Context, text string) int {
	status, _, raw, err := c.call(ctx, "POST", "/api/outside-agents/v1/notices", map[string]string{"text": text}, nil)
	if err != nil {
		fmt.Fprintln(c.stderr, "harnest connect: notice failed:", err)
		return 1
	}
	if status != http.StatusAccepted {
		fmt.Fprintf(c.stderr, "harnest connect: notice not sent (%d): %s\n", status, detailOf(raw))
		return 1
	}
	fmt.Fprintln(c.stdout, "Notice sent.")
	return 0
}

// relayItem is one inbox item.
type relayItem struct {
	RelayID    string       `json:"relay_id"`
	Text       string       `json:"text"`
	AskedAt    string       `json:"asked_at"`
	DeadlineAt string       `json:"deadline_at"`
	Callback   itemCallback `json:"callback"` // run_note, only with tools at home
}

// retryAfter reads Retry-After in seconds (at least one second).
func retryAfter(h http.Header) time.Duration {
	n, err := strconv.Atoi(strings.TrimSpace(h.Get("Retry-After")))
	if err != nil || n < 1 {
		n = 5
	}
	return time.Duration(n) * time.Second
}

// loop polls the inbox, answers each new item once and replies before its
// deadline, until ctx ends or the session is no longer valid. One poll at
// a time: the next starts only after this one's items are answered.
func (c *connector) loop(ctx context.Context) int {
	backoff := time.Second
	for ctx.Err() == nil {
		var inbox struct {
			Items []relayItem `json:"items"`
		}
		status, h, raw, err := c.call(ctx, "GET", "/api/outside-agents/v1/inbox?wait="+strconv.Itoa(c.wait), nil, &inbox)
		switch {
		case ctx.Err() != nil:
			return 0
		case err != nil || status >= 500 || status == 0:
			fmt.Fprintf(c.stderr, "Polling failed (%s); retrying in %s.\n", errOr(err, strconv.Itoa(status)), backoff)
			if !c.sleep(ctx, backoff) {
				return 0
			}
			backoff = min(backoff*2, connectMaxBackoff)
			continue
		case status == http.StatusUnauthorized:
			fmt.Fprintln(c.stderr, connectPairAgain)
			return 1
		case status == http.StatusTooManyRequests:
			if !c.sleep(ctx, retryAfter(h)) {
				return 0
			}
			continue
		case status != http.StatusOK:
			fmt.Fprintf(c.stderr, "Polling failed (%d): %s; retrying in %s.\n", status, detailOf(raw), backoff)
			if !c.sleep(ctx, backoff) {
				return 0
			}
			backoff = min(backoff*2, connectMaxBackoff)
			continue
		}
		backoff = time.Second
		c.prune()
		for _, it := range inbox.Items {
			if code, stop := c.handle(ctx, it); stop {
				return code
			}
		}
	}
	return 0
}

// prune forgets relay IDs whose deadline passed long ago.
func (c *connector) prune() {
	now := time.Now()
	for id, d := range c.seen {
		if now.Sub(d) > 5*time.Minute {
			delete(c.seen, id)
		}
	}
}

// handle answers one item (once per relay ID) and replies.
func (c *connector) handle(ctx context.Context, it relayItem) (int, bool) {
	if it.RelayID == "" {
		return 0, false
	}
	if _, done := c.seen[it.RelayID]; done {
		return 0, false
	}
	deadline, err := time.Parse(time.RFC3339, it.DeadlineAt)
	if err != nil {
		deadline = time.Now().Add(60 * time.Second)
	}
	c.seen[it.RelayID] = deadline
	budget := min(time.Until(deadline)-500*time.Millisecond, c.cmdTimeout)
	if budget <= 0 {
		fmt.Fprintf(c.stderr, "Skipped %s: its deadline has passed.\n", it.RelayID)
		return 0, false
	}
	j := job{text: it.Text, relayID: it.RelayID, runNote: it.Callback.RunNote, callbackToken: c.callbackToken, server: c.base}
	answer, err := c.run(ctx, j, budget)
	if err != nil {
		fmt.Fprintf(c.stderr, "No answer for %s: %v.\n", it.RelayID, err)
		return 0, false
	}
	return c.reply(ctx, it.RelayID, answer, deadline)
}

// reply posts the answer, retrying a failed post while the deadline
// allows (at most three tries).
func (c *connector) reply(ctx context.Context, relayID, answer string, deadline time.Time) (int, bool) {
	for attempt := 0; attempt < 3 && time.Now().Before(deadline); attempt++ {
		status, h, raw, err := c.call(ctx, "POST", "/api/outside-agents/v1/replies", map[string]string{"relay_id": relayID, "text": answer}, nil)
		switch {
		case ctx.Err() != nil:
			return 0, true
		case err != nil || status >= 500:
			if !c.sleep(ctx, time.Second) {
				return 0, true
			}
			continue
		case status == http.StatusOK:
			fmt.Fprintf(c.stderr, "Answered %s.\n", relayID)
		case status == http.StatusUnauthorized:
			fmt.Fprintln(c.stderr, connectPairAgain)
			return 1, true
		case status == http.StatusTooManyRequests:
			if !c.sleep(ctx, min(retryAfter(h), time.Until(deadline))) {
				return 0, true
			}
			continue
		default:
			fmt.Fprintf(c.stderr, "Reply to %s not accepted (%d): %s\n", relayID, status, detailOf(raw))
		}
		return 0, false
	}
	return 0, false
}
