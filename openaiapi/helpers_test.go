package openaiapi_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"regexp"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/server/servertest"
)

// openaiCompat turns the door on, then applies more changes.
func openaiCompat(more ...func(*config.Config)) func(*config.Config) {
	return func(c *config.Config) {
		c.Server.OpenAICompat = true
		for _, f := range more {
			f(c)
		}
	}
}

// echo sets options of the echo backend.
func echo(set func(*config.EchoBackend)) func(*config.Config) {
	return func(c *config.Config) {
		if c.Spec.Backend.Echo == nil {
			c.Spec.Backend.Echo = &config.EchoBackend{}
		}
		set(c.Spec.Backend.Echo)
	}
}

// newClient is the official client pointed at the server's /v1/, with no
// retries (a refusal must reach the test as it is).
func newClient(ts *servertest.Server, apiKey string) *openai.Client {
	c := openai.NewClient(option.WithBaseURL(ts.URL+"/v1/"), option.WithAPIKey(apiKey),
		option.WithMaxRetries(0), option.WithRequestTimeout(20*time.Second))
	return &c
}

// userTurn is a chat request for the echo agent "hello" whose newest user
// message is text.
func userTurn(text string, earlier ...openai.ChatCompletionMessageParamUnion) openai.ChatCompletionNewParams {
	return openai.ChatCompletionNewParams{
		Model:    "hello",
		Messages: append(earlier, openai.UserMessage(text)),
	}
}

// apiError returns err as the client's *openai.Error, failing otherwise.
func apiError(t *testing.T, err error) *openai.Error {
	t.Helper()
	var e *openai.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *openai.Error", err, err)
	}
	return e
}

// mustAPIError checks an error's status, type and code.
func mustAPIError(t *testing.T, err error, status int, typ, code string) *openai.Error {
	t.Helper()
	e := apiError(t, err)
	if e.StatusCode != status || e.Type != typ || e.Code != code || e.Message == "" {
		t.Fatalf("error = %d %q %q %q, want %d %q %q", e.StatusCode, e.Type, e.Code, e.Message, status, typ, code)
	}
	return e
}

var approvalID = regexp.MustCompile(`/approvals/(approval_[0-9a-f]+)`)
var clientToolID = regexp.MustCompile(`/client-tools/(client_tool_[0-9a-f]+)`)

// idIn finds the ID that re names in text.
func idIn(t *testing.T, re *regexp.Regexp, text string) string {
	t.Helper()
	m := re.FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no %s in %q", re, text)
	}
	return m[1]
}

// receiptStatus waits (bounded) until the response's receipt has status
// want, and fails with the last one otherwise.
func receiptStatus(t *testing.T, ts *servertest.Server, sessionID, responseID, want string) {
	t.Helper()
	var last string
	for range 200 {
		reply := ts.Get("/responses/" + responseID + "?sessionId=" + sessionID)
		var receipt struct{ Status string }
		if reply.Status == http.StatusOK && json.Unmarshal(reply.Body, &receipt) == nil {
			if last = receipt.Status; last == want {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("receipt status %q, want %q", last, want)
}

// transcript is the session's messages as role and text.
func transcript(t *testing.T, ts *servertest.Server, sessionID string) []string {
	t.Helper()
	reply := ts.Get("/sessions/" + sessionID + "/messages")
	servertest.MustStatus(t, reply, http.StatusOK)
	var page struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(reply.Body, &page); err != nil {
		t.Fatalf("messages: %v: %s", err, reply.Body)
	}
	var out []string
	for _, m := range page.Messages {
		var text string
		_ = json.Unmarshal(m.Content, &text)
		out = append(out, m.Role+": "+text)
	}
	return out
}

// unquote decodes a JSON string.
func unquote(t *testing.T, raw string) string {
	t.Helper()
	var s string
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		t.Fatalf("%s is not a JSON string: %v", raw, err)
	}
	return s
}
