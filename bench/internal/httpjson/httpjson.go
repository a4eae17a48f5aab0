// Package httpjson makes the small JSON calls the benchmark's programs need
// besides their measured load: create a session, start a response, read a
// receipt, answer an approval, delete a session.
package httpjson

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// maxAnswer bounds how much of an answer is read.
const maxAnswer = 16 << 20

// Post sends body as JSON and decodes a 2xx JSON answer into out (nil: the
// answer is read and dropped).
func Post(ctx context.Context, client *http.Client, url, body string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	return do(client, req, out)
}

// Get decodes a 2xx JSON answer into out (nil: the answer is read and
// dropped).
func Get(ctx context.Context, client *http.Client, url string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	return do(client, req, out)
}

// Delete sends a DELETE and wants a 2xx answer.
func Delete(ctx context.Context, client *http.Client, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, url, nil)
	if err != nil {
		return err
	}
	return do(client, req, nil)
}

func do(client *http.Client, req *http.Request, out any) error {
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return fmt.Errorf("%s %s: read the answer: %w", req.Method, req.URL.Path, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("%s %s: HTTP %d: %s", req.Method, req.URL.Path, resp.StatusCode, bytes.TrimSpace(body))
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("%s %s: the answer is not the JSON expected: %v", req.Method, req.URL.Path, err)
	}
	return nil
}
