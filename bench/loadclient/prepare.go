package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Placeholder is replaced, in -url and -body, by the value the prepare
// request returned (-prepare-url).
const Placeholder = "{{prepared}}"

// Prepare is a request made before the measured one, for servers that need
// something to exist first: ADK's /run_sse needs a session, created with
// POST .../sessions. Its JSON answer's Field replaces Placeholder in the
// measured request's URL and body.
type Prepare struct {
	URL   string
	Body  string
	Field string // top-level field of the JSON answer; default "id"
	// Every is "request" (default: a new one before every measured
	// request, counted in throughput but not in latency) or "worker" (one
	// per worker, before its first request).
	Every string
}

// enabled reports whether a prepare step is configured.
func (p Prepare) enabled() bool { return p.URL != "" }

// validate checks the prepare options.
func (p Prepare) validate() error {
	if !p.enabled() {
		return nil
	}
	if err := CheckLoopback(p.URL); err != nil {
		return fmt.Errorf("-prepare-url: %w", err)
	}
	if p.Every != "" && p.Every != "request" && p.Every != "worker" {
		return fmt.Errorf("-prepare-every %q: want request or worker", p.Every)
	}
	return nil
}

// run POSTs the prepare request and returns the answer's field as text.
func (p Prepare) run(ctx context.Context, client *http.Client, header http.Header) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.URL, strings.NewReader(p.Body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		if !strings.EqualFold(k, "Host") {
			req.Header[k] = v
		}
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", fmt.Errorf("prepare: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return "", fmt.Errorf("prepare: read the answer: %w", err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return "", fmt.Errorf("prepare: HTTP %d: %s", resp.StatusCode, bytes.TrimSpace(body))
	}
	field := p.Field
	if field == "" {
		field = "id"
	}
	var answer map[string]json.RawMessage
	if err := json.Unmarshal(body, &answer); err != nil {
		return "", fmt.Errorf("prepare: the answer is not a JSON object: %v", err)
	}
	var value string
	if err := json.Unmarshal(answer[field], &value); err != nil || value == "" {
		return "", fmt.Errorf("prepare: the answer has no string field %q: %s", field, body)
	}
	return value, nil
}
