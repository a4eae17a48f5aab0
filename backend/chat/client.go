package chat

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/harnest/harnest/internal/pause"
)

// DefaultTimeout bounds one call, its retries included, when
// Options.Timeout is zero.
const DefaultTimeout = 120 * time.Second

// Options configure a Client.
type Options struct {
	// BaseURL is the endpoint's base, an absolute http(s) URL such as
	// http://127.0.0.1:11434/v1; requests go to BaseURL/chat/completions.
	BaseURL string
	// Model is the model to ask for (required).
	Model string
	// APIKey, when set, is sent as Authorization: Bearer <key>.
	APIKey string
	// Headers are extra request headers; they are set last, so they may
	// override Accept or Authorization.
	Headers map[string]string
	// Temperature and MaxOutputTokens (sent as max_tokens) are sent only
	// when set.
	Temperature     *float64
	MaxOutputTokens *int
	// Timeout bounds one call, its retries included (0: DefaultTimeout).
	Timeout time.Duration
	// HTTPClient sends the requests (nil: a client of the package's own
	// with dial, TLS and idle timeouts; the call's Timeout bounds the rest).
	HTTPClient *http.Client
	// Logger receives the endpoint's own error text, redacted (nil:
	// slog.Default()).
	Logger *slog.Logger
	// Sleep waits between retries; it returns ctx's error when ctx ends
	// first (nil: a timer). Tests inject one that records the waits.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Client calls one Chat Completions endpoint. It holds no per-call state,
// so one Client serves many calls at once.
type Client struct {
	opts     Options
	endpoint string // BaseURL joined with chat/completions
	hostPort string // the endpoint's host:port, for sentences
	provider string
	redactor *redactor
}

// New checks o and returns a client: BaseURL must be an absolute http(s)
// URL and Model must be set.
func New(o Options) (*Client, error) {
	u, err := url.Parse(o.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New("chat: the base URL is not an absolute http(s) URL; set it to the endpoint's base, such as http://127.0.0.1:11434/v1 or https://api.openai.com/v1")
	}
	if o.Model == "" {
		return nil, errors.New("chat: no model is set; name the model to ask for, such as gpt-4o-mini or qwen3:8b")
	}
	if o.Timeout < 0 {
		return nil, fmt.Errorf("chat: the timeout %v is negative; use 0 for the default of %v", o.Timeout, DefaultTimeout)
	}
	if o.Timeout == 0 {
		o.Timeout = DefaultTimeout
	}
	if o.HTTPClient == nil {
		o.HTTPClient = defaultHTTPClient()
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Sleep == nil {
		o.Sleep = pause.For
	}
	secrets := []string{o.APIKey}
	for _, v := range o.Headers {
		secrets = append(secrets, v)
	}
	if password, ok := u.User.Password(); ok {
		secrets = append(secrets, password)
	}
	return &Client{
		opts:     o,
		endpoint: u.JoinPath("chat/completions").String(),
		hostPort: hostPort(u),
		provider: providerName(u),
		redactor: newRedactor(secrets...),
	}, nil
}

// Model is the configured model.
func (c *Client) Model() string { return c.opts.Model }

// Provider is the short provider name derived from the base URL (openai,
// openrouter, ollama, ... or the host).
func (c *Client) Provider() string { return c.provider }

// defaultHTTPClient bounds the steps of a connection; the whole call is
// bounded by its context.
func defaultHTTPClient() *http.Client {
	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	return &http.Client{Transport: &http.Transport{
		DialContext:           dialer.DialContext,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
		IdleConnTimeout:       90 * time.Second,
		MaxIdleConnsPerHost:   16,
		ForceAttemptHTTP2:     true,
	}}
}

// hostPort is u's host with its port, the default one when u names none.
func hostPort(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	if u.Scheme == "https" {
		return net.JoinHostPort(u.Hostname(), "443")
	}
	return net.JoinHostPort(u.Hostname(), "80")
}
