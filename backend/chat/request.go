package chat

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/harnest/harnest/internal/tracing"
)

// Request is one model call: the conversation so far and the tools the
// model may call.
type Request struct {
	Messages []Message
	Tools    []Tool
	// IdempotencyKey, when set, is sent as the Idempotency-Key header: the
	// same for every try of one step, also from a later attempt of the turn.
	IdempotencyKey string
	// ResponseFormat, when set, asks for structured output: the answer is
	// JSON that matches a schema (response_format json_schema).
	ResponseFormat *ResponseFormat
}

// ResponseFormat is Chat Completions' response_format:
// {"type":"json_schema","json_schema":{"name","schema","strict"}}.
type ResponseFormat struct {
	Type       string     `json:"type"`
	JSONSchema JSONSchema `json:"json_schema"`
}

// JSONSchema names the schema of a structured answer.
type JSONSchema struct {
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
	Strict bool            `json:"strict"`
}

// wireRequest is the JSON body of POST /chat/completions.
type wireRequest struct {
	Model         string         `json:"model"`
	Messages      []Message      `json:"messages"`
	Stream        bool           `json:"stream"`
	StreamOptions *streamOptions `json:"stream_options,omitempty"`
	Tools         []Tool         `json:"tools,omitempty"`
	Temperature   *float64       `json:"temperature,omitempty"`
	MaxTokens     *int           `json:"max_tokens,omitempty"`
	// ResponseFormat asks for structured output (Request.ResponseFormat).
	ResponseFormat *ResponseFormat `json:"response_format,omitempty"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// requestBody encodes req for the wire: streamed, usage included, optional
// fields only when set.
func (c *Client) requestBody(req Request) ([]byte, error) {
	wire := wireRequest{
		Model:         c.opts.Model,
		Messages:      req.Messages,
		Stream:        true,
		StreamOptions: &streamOptions{IncludeUsage: true},
		Temperature:   c.opts.Temperature,
		MaxTokens:     c.opts.MaxOutputTokens,

		ResponseFormat: req.ResponseFormat,
	}
	if wire.Messages == nil {
		wire.Messages = []Message{}
	}
	for _, tool := range req.Tools {
		if tool.Type == "" {
			tool.Type = typeFunction
		}
		wire.Tools = append(wire.Tools, tool)
	}
	body, err := json.Marshal(wire)
	if err != nil {
		return nil, fmt.Errorf("chat: encoding the request: %w (check the tools' parameter schemas: each must be valid JSON)", err)
	}
	return body, nil
}

// newHTTPRequest builds one attempt's request: JSON in, events out, the
// key as a bearer token, the extra headers last.
func (c *Client) newHTTPRequest(ctx context.Context, body []byte) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("chat: building the request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("User-Agent", "harnest")
	tracing.Inject(ctx, req.Header) // the W3C traceparent of the model call's span
	if c.opts.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.opts.APIKey)
	}
	for name, value := range c.opts.Headers {
		req.Header.Set(name, value)
	}
	if key, _ := ctx.Value(idempotencyKey{}).(string); key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	return req, nil
}

// idempotencyKey is the context key of the call's Request.IdempotencyKey,
// which every try of the call sends.
type idempotencyKey struct{}
