package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// The A2A bridge of "harnest connect --a2a URL": each question goes to a
// local A2A agent as one blocking SendMessage over JSON-RPC (A2A 1.0), or
// as message/send (A2A 0.3) when the agent's card says its endpoint speaks
// 0.3 or the agent does not know SendMessage. Plain JSON-RPC over net/http:
// one request a question, nothing streamed, nothing polled.

// JSON-RPC error codes after which the bridge asks again in A2A 0.3.
const (
	rpcMethodNotFound      = -32601
	rpcVersionNotSupported = -32009 // A2A 1.0's VersionNotSupportedError
)

// bridgeMaxBody bounds what the bridge reads of any answer.
const bridgeMaxBody = 1 << 20

// Spec versions the bridge speaks.
const (
	a2aV10 = "1.0"
	a2aV03 = "0.3"
)

// a2aBridge answers questions through a local A2A agent, one at a time
// (it is not for concurrent use: the connector asks one question at once).
type a2aBridge struct {
	endpoint *url.URL
	token    string // A2A_TOKEN: sent as Bearer, never printed
	client   *http.Client
	version  string // a2aV10 or a2aV03 once the card or an answer told; "" before
	cardRead bool
}

// dialFunc opens a network connection (net.Dialer.DialContext).
type dialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

// newA2ABridge checks the URL before anything dials, and builds the
// bridge's HTTP client on dial (nil: the system's dialer). Redirects are
// refused: each request goes where the URL says, or nowhere.
func newA2ABridge(raw, token string, dial dialFunc) (*a2aBridge, error) {
	u, err := checkBridgeURL(raw)
	if err != nil {
		return nil, err
	}
	if dial == nil {
		dial = (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	}
	transport := &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		DialContext:         dial,
		ForceAttemptHTTP2:   true,
		MaxIdleConnsPerHost: 2,
		IdleConnTimeout:     90 * time.Second,
		TLSHandshakeTimeout: 10 * time.Second,
	}
	client := &http.Client{Transport: transport, CheckRedirect: func(req *http.Request, _ []*http.Request) error {
		return fmt.Errorf("the A2A agent redirected to %s; give its final address with --a2a", req.URL.Redacted())
	}}
	return &a2aBridge{endpoint: u, token: strings.TrimSpace(token), client: client}, nil
}

// checkBridgeURL accepts https to any host, and plain http only to
// 127.0.0.1, localhost or ::1. A credential never goes in the URL.
func checkBridgeURL(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, fmt.Errorf("--a2a %q is not an http or https URL of the agent's JSON-RPC endpoint, e.g. http://127.0.0.1:8001/", raw)
	}
	if u.User != nil {
		return nil, errors.New("--a2a: the URL holds a user or password; put the agent's credential in A2A_TOKEN instead")
	}
	if u.Scheme == "http" {
		switch u.Hostname() {
		case "127.0.0.1", "localhost", "::1":
		default:
			return nil, fmt.Errorf("--a2a: plain http is accepted only for 127.0.0.1, localhost or ::1, not %q; use https for any other host", u.Hostname())
		}
	}
	u.Fragment = ""
	return u, nil
}

func (b *a2aBridge) what() string {
	return "the A2A agent at " + b.endpoint.Redacted()
}

// answer sends the question and returns the text of the answer. The first
// answer also settles the spec version: the card's word for this
// endpoint, else 1.0, and 0.3 from then on when the agent does not know
// the 1.0 method.
func (b *a2aBridge) answer(ctx context.Context, j job) (string, error) {
	if !b.cardRead {
		b.cardRead = true
		b.version = b.cardVersion(ctx)
	}
	version := b.version
	if version == "" {
		version = a2aV10
	}
	result, err := b.send(ctx, version, j.text)
	var rpcErr *rpcError
	if b.version == "" && errors.As(err, &rpcErr) && (rpcErr.Code == rpcMethodNotFound || rpcErr.Code == rpcVersionNotSupported) {
		version = a2aV03
		result, err = b.send(ctx, version, j.text)
	}
	if err != nil {
		return "", err
	}
	b.version = version
	return resultText(result)
}

// send makes one JSON-RPC call: SendMessage in 1.0 (blocking is its
// default), message/send with blocking in 0.3.
func (b *a2aBridge) send(ctx context.Context, version, text string) (json.RawMessage, error) {
	id := newMessageID()
	var method string
	var params any
	if version == a2aV10 {
		method = "SendMessage"
		params = map[string]any{"message": map[string]any{
			"messageId": id, "role": "ROLE_USER", "parts": []any{map[string]any{"text": text}}}}
	} else {
		method = "message/send"
		params = map[string]any{
			"message": map[string]any{"kind": "message", "messageId": id, "role": "user",
				"parts": []any{map[string]any{"kind": "text", "text": text}}},
			"configuration": map[string]any{"blocking": true},
		}
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	req, err := http.NewRequestWithContext(ctx, "POST", b.endpoint.String(), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if version == a2aV10 {
		req.Header.Set("A2A-Version", a2aV10)
	}
	if b.token != "" {
		req.Header.Set("Authorization", "Bearer "+b.token)
	}
	status, raw, err := b.do(req)
	if err != nil {
		return nil, err
	}
	return b.rpcResult(method, status, raw)
}

// do sends a request and reads the whole (bounded) body.
func (b *a2aBridge) do(req *http.Request) (int, []byte, error) {
	resp, err := b.client.Do(req)
	if err != nil {
		if req.Context().Err() != nil {
			return 0, nil, req.Context().Err()
		}
		return 0, nil, fmt.Errorf("cannot reach %s: %v", b.what(), err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, bridgeMaxBody+1))
	if err != nil {
		return 0, nil, fmt.Errorf("the answer of %s broke off: %v", b.what(), err)
	}
	if len(raw) > bridgeMaxBody {
		return 0, nil, fmt.Errorf("the answer of %s is larger than %d bytes", b.what(), bridgeMaxBody)
	}
	return resp.StatusCode, raw, nil
}

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *rpcError) Error() string {
	msg := e.Message
	if len(msg) > 200 {
		msg = msg[:200] + "…"
	}
	return fmt.Sprintf("the A2A agent answered with error %d: %s", e.Code, msg)
}

// rpcResult reads a JSON-RPC response: its result, or its error.
func (b *a2aBridge) rpcResult(method string, status int, raw []byte) (json.RawMessage, error) {
	if status == http.StatusUnauthorized || status == http.StatusForbidden {
		hint := "set A2A_TOKEN to its credential"
		if b.token != "" {
			hint = "check the credential in A2A_TOKEN"
		}
		return nil, fmt.Errorf("%s refused the request (HTTP %d): %s", b.what(), status, hint)
	}
	var resp struct {
		Result json.RawMessage `json:"result"`
		Error  *rpcError       `json:"error"`
	}
	if err := json.Unmarshal(raw, &resp); err != nil || (resp.Error == nil && len(resp.Result) == 0) {
		return nil, fmt.Errorf("%s answered %s with HTTP %d and no JSON-RPC response; is --a2a its JSON-RPC endpoint?", b.what(), method, status)
	}
	if resp.Error != nil {
		return nil, resp.Error
	}
	return resp.Result, nil
}

// cardVersion reads the agent card on the endpoint's host and returns the
// version it gives this endpoint's JSON-RPC interface: "1.0", "0.3", or ""
// when there is no card or it does not name the endpoint.
func (b *a2aBridge) cardVersion(ctx context.Context) string {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	cardURL := url.URL{Scheme: b.endpoint.Scheme, Host: b.endpoint.Host, Path: "/.well-known/agent-card.json"}
	req, err := http.NewRequestWithContext(ctx, "GET", cardURL.String(), nil)
	if err != nil {
		return ""
	}
	req.Header.Set("Accept", "application/json")
	status, raw, err := b.do(req)
	if err != nil || status != http.StatusOK {
		return ""
	}
	return cardVersionFor(raw, b.endpoint)
}

// newMessageID is a random ID for a message and its JSON-RPC request.
func newMessageID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
