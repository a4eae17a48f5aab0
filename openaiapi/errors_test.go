package openaiapi_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/openaiapi"
	"github.com/harnest/harnest/server/servertest"
)

// withTokens configures two users.
func withTokens(c *config.Config) {
	c.Auth.Tokens = []config.Token{{Token: "alice-token", User: "alice"}, {Token: "bob-token", User: "bob"}}
}

func TestAuthentication(t *testing.T) {
	servertest.EachStore(t, servertest.Setup{Config: openaiCompat(withTokens)}, func(t *testing.T, ts *servertest.Server) {
		_, err := newClient(ts, "wrong-token").Chat.Completions.New(t.Context(), userTurn("hi"))
		mustAPIError(t, err, http.StatusUnauthorized, "authentication_error", "invalid_api_key")
		_, err = newClient(ts, "wrong-token").Models.List(t.Context())
		mustAPIError(t, err, http.StatusUnauthorized, "authentication_error", "invalid_api_key")

		// Without any token: the raw answer is OpenAI's shape, param null.
		reply := ts.Post("/v1/chat/completions", `{"model":"hello","messages":[{"role":"user","content":"hi"}]}`)
		var body map[string]map[string]any
		if reply.Status != http.StatusUnauthorized || json.Unmarshal(reply.Body, &body) != nil {
			t.Fatalf("status %d: %s", reply.Status, reply.Body)
		}
		e := body["error"]
		if p, has := e["param"]; !has || p != nil || e["code"] != "invalid_api_key" || e["type"] != "authentication_error" ||
			!strings.Contains(e["message"].(string), "Authorization: Bearer") || reply.Header.Get("WWW-Authenticate") == "" {
			t.Fatalf("401 body = %s", reply.Body)
		}

		// Alice's session is hers: Bob cannot continue it.
		var head *http.Response
		c, err := newClient(ts, "alice-token").Chat.Completions.New(t.Context(), userTurn("hi"), option.WithResponseInto(&head))
		if err != nil || c.Choices[0].Message.Content != "Echo: hi" {
			t.Fatalf("alice: %+v (%v)", c, err)
		}
		session := option.WithHeader(openaiapi.SessionHeader, head.Header.Get(openaiapi.SessionHeader))
		_, err = newClient(ts, "bob-token").Chat.Completions.New(t.Context(), userTurn("mine now"), session)
		mustAPIError(t, err, http.StatusNotFound, "invalid_request_error", "session_not_found")
		if _, err := newClient(ts, "alice-token").Chat.Completions.New(t.Context(), userTurn("again"), session); err != nil {
			t.Fatal(err)
		}
	})
}

func TestRequestErrors(t *testing.T) {
	setup := servertest.Setup{Config: openaiCompat(func(c *config.Config) { c.Server.Limits.MaxRequestBytes = 2048 })}
	servertest.EachStore(t, setup, func(t *testing.T, ts *servertest.Server) {
		client := newClient(ts, "unused")
		wrongModel := userTurn("hi")
		wrongModel.Model = "gpt-4o"
		_, err := client.Chat.Completions.New(t.Context(), wrongModel)
		if e := mustAPIError(t, err, http.StatusNotFound, "invalid_request_error", "model_not_found"); e.Param != "model" {
			t.Fatalf("param %q", e.Param)
		}
		_, err = client.Chat.Completions.New(t.Context(), userTurn("hi"), option.WithHeader(openaiapi.SessionHeader, "sess_nope"))
		mustAPIError(t, err, http.StatusNotFound, "invalid_request_error", "session_not_found")
		_, err = client.Chat.Completions.New(t.Context(), openai.ChatCompletionNewParams{Model: "hello",
			Messages: []openai.ChatCompletionMessageParamUnion{openai.SystemMessage("only a system prompt")}})
		mustAPIError(t, err, http.StatusBadRequest, "invalid_request_error", "invalid_messages")
		_, err = client.Chat.Completions.New(t.Context(), userTurn(strings.Repeat("x", 4096)))
		mustAPIError(t, err, http.StatusRequestEntityTooLarge, "invalid_request_error", "request_too_large")

		for _, c := range []struct {
			method, path, body string
			status             int
			code               string
		}{
			{"POST", "/v1/chat/completions", `{"model":"hello"}`, 400, "invalid_messages"},
			{"POST", "/v1/chat/completions", `{"messages":[{"role":"user","content":"hi"}]}`, 400, "invalid_model"},
			{"POST", "/v1/chat/completions", `{"model":"hello","messages":[{"role":"user","content":"  "}]}`, 400, "invalid_content"},
			{"POST", "/v1/chat/completions", `{"model":"hello","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"x"}}]}]}`, 400, "invalid_content"},
			{"POST", "/v1/chat/completions", `{"model":"hello","stream":"yes","messages":[{"role":"user","content":"hi"}]}`, 400, "invalid_type"},
			{"POST", "/v1/chat/completions", `[1]`, 400, "invalid_json"},
			{"GET", "/v1/chat/completions", ``, 405, "method_not_allowed"},
			{"POST", "/v1/models", `{}`, 405, "method_not_allowed"},
			{"GET", "/v1/embeddings", ``, 404, "unknown_url"},
		} {
			reply := ts.Do(c.method, c.path, "application/json", []byte(c.body))
			var body struct {
				Error struct{ Code, Message, Type string }
			}
			if reply.Status != c.status || json.Unmarshal(reply.Body, &body) != nil || body.Error.Code != c.code || body.Error.Message == "" {
				t.Errorf("%s %s %s: %d %s, want %d %s", c.method, c.path, c.body, reply.Status, reply.Body, c.status, c.code)
			}
		}
		// Unknown fields are ignored.
		reply := ts.Post("/v1/chat/completions", `{"model":"hello","temperature":0.2,"user":"u","messages":[{"role":"user","content":"hi","name":"me"}]}`)
		if reply.Status != http.StatusOK || !strings.Contains(string(reply.Body), `"content":"Echo: hi"`) {
			t.Fatalf("status %d: %s", reply.Status, reply.Body)
		}
	})
}

// slow is the echo agent pausing between its events.
func slow(c *config.Config) { echo(func(e *config.EchoBackend) { e.DelayMs = 200 })(c) }

// startSlow starts a slow streamed completion and returns its session
// once it runs.
func startSlow(t *testing.T, client *openai.Client) string {
	t.Helper()
	var head *http.Response
	stream := client.Chat.Completions.NewStreaming(t.Context(), userTurn("a slow one two three"), option.WithResponseInto(&head))
	t.Cleanup(func() { stream.Close() })
	if !stream.Next() { // the role chunk: the response runs
		t.Fatalf("no first chunk: %v", stream.Err())
	}
	return head.Header.Get(openaiapi.SessionHeader)
}

func TestBusySession(t *testing.T) {
	servertest.EachStore(t, servertest.Setup{Config: openaiCompat(slow)}, func(t *testing.T, ts *servertest.Server) {
		client := newClient(ts, "unused")
		session := startSlow(t, client)
		_, err := client.Chat.Completions.New(t.Context(), userTurn("me too"), option.WithHeader(openaiapi.SessionHeader, session))
		mustAPIError(t, err, http.StatusConflict, "invalid_request_error", "session_busy")
	})
}

func TestRateLimit(t *testing.T) {
	setup := servertest.Setup{Config: openaiCompat(slow, func(c *config.Config) { c.Server.Limits.MaxTurnsPerUser = 1 })}
	servertest.EachStore(t, setup, func(t *testing.T, ts *servertest.Server) {
		client := newClient(ts, "unused")
		startSlow(t, client)
		var refused *http.Response
		_, err := client.Chat.Completions.New(t.Context(), userTurn("elsewhere"), option.WithResponseInto(&refused))
		mustAPIError(t, err, http.StatusTooManyRequests, "rate_limit_error", "rate_limit_exceeded")
		if refused.Header.Get("Retry-After") == "" {
			t.Fatalf("429 without Retry-After: %v", refused.Header)
		}
	})
}

// TestClosingTheStreamCancels: a client that closes the stream cancels
// the response, whose receipt then says so.
func TestClosingTheStreamCancels(t *testing.T) {
	servertest.EachStore(t, servertest.Setup{Config: openaiCompat(slow)}, func(t *testing.T, ts *servertest.Server) {
		client := newClient(ts, "unused")
		var head *http.Response
		stream := client.Chat.Completions.NewStreaming(t.Context(), userTurn("one two three four five six seven"), option.WithResponseInto(&head))
		for stream.Next() {
			if c := stream.Current(); len(c.Choices) == 1 && c.Choices[0].Delta.Content != "" {
				break // the first content delta: the agent is running
			}
		}
		if err := stream.Close(); err != nil {
			t.Fatal(err)
		}
		receiptStatus(t, ts, head.Header.Get(openaiapi.SessionHeader), head.Header.Get("Harnest-Response-Id"), "cancelled")
	})
}

// TestFailureMidStream: an agent that fails after its first delta ends the
// stream with an error frame, which the client reports.
func TestFailureMidStream(t *testing.T) {
	setup := servertest.Setup{Config: openaiCompat(echo(func(e *config.EchoBackend) { e.Fail = true }))}
	servertest.EachStore(t, setup, func(t *testing.T, ts *servertest.Server) {
		client := newClient(ts, "unused")
		stream := client.Chat.Completions.NewStreaming(t.Context(), userTurn("hi there"))
		for stream.Next() {
		}
		if err := stream.Err(); err == nil || !strings.Contains(err.Error(), "invocation_failed") {
			t.Fatalf("stream error = %v", err)
		}
		_, err := client.Chat.Completions.New(t.Context(), userTurn("hi there"))
		mustAPIError(t, err, http.StatusInternalServerError, "server_error", "invocation_failed")
	})
}

// TestDeadline: the response's deadline (http.requestTimeoutSeconds)
// applies, as a 504 or, streamed, an error frame.
func TestDeadline(t *testing.T) {
	setup := servertest.Setup{Config: openaiCompat(slow, func(c *config.Config) { c.Server.HTTP.RequestTimeoutSeconds = 0.3 })}
	servertest.EachStore(t, setup, func(t *testing.T, ts *servertest.Server) {
		client := newClient(ts, "unused")
		_, err := client.Chat.Completions.New(t.Context(), userTurn("one two three four five six"))
		mustAPIError(t, err, http.StatusGatewayTimeout, "server_error", "timed_out")
		stream := client.Chat.Completions.NewStreaming(t.Context(), userTurn("one two three four five six"))
		for stream.Next() {
		}
		if err := stream.Err(); err == nil || !strings.Contains(err.Error(), "timed_out") {
			t.Fatalf("stream error = %v", err)
		}
	})
}
