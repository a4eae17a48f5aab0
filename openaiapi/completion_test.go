package openaiapi_test

import (
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/openaiapi"
	"github.com/harnest/harnest/server/servertest"
)

func TestModels(t *testing.T) {
	servertest.EachStore(t, servertest.Setup{Config: openaiCompat()}, func(t *testing.T, ts *servertest.Server) {
		client := newClient(ts, "unused")
		page, err := client.Models.List(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Data) != 1 || page.Data[0].ID != "hello" || page.Data[0].OwnedBy != "harnest" ||
			page.Data[0].Object != "model" || page.Data[0].Created <= 0 || page.Object != "list" {
			t.Fatalf("models = %+v", page)
		}
		m, err := client.Models.Get(t.Context(), "hello")
		if err != nil || m.ID != "hello" || m.Created != page.Data[0].Created {
			t.Fatalf("model = %+v (%v)", m, err)
		}
		_, err = client.Models.Get(t.Context(), "gpt-4o")
		mustAPIError(t, err, http.StatusNotFound, "invalid_request_error", "model_not_found")
	})
}

func TestCompletionAndFollowUp(t *testing.T) {
	servertest.EachStore(t, servertest.Setup{Config: openaiCompat()}, func(t *testing.T, ts *servertest.Server) {
		client := newClient(ts, "unused")
		var first *http.Response
		c, err := client.Chat.Completions.New(t.Context(), userTurn("Hello there"), option.WithResponseInto(&first))
		if err != nil {
			t.Fatal(err)
		}
		session := first.Header.Get(openaiapi.SessionHeader)
		responseID := first.Header.Get("Harnest-Response-Id")
		if session == "" || c.ID != "chatcmpl-"+responseID || c.Object != "chat.completion" || c.Model != "hello" || c.Created <= 0 {
			t.Fatalf("completion %q %q %q, session %q, response %q", c.ID, c.Object, c.Model, session, responseID)
		}
		if len(c.Choices) != 1 || c.Choices[0].Message.Content != "Echo: Hello there" ||
			c.Choices[0].Message.Role != "assistant" || c.Choices[0].FinishReason != "stop" {
			t.Fatalf("choices = %+v", c.Choices)
		}
		if c.JSON.Usage.Valid() {
			t.Fatalf("the echo agent reports no usage, yet usage = %+v", c.Usage)
		}

		// The follow-up sends the whole conversation, as chat clients do;
		// only its newest user message reaches the session.
		var second *http.Response
		c, err = client.Chat.Completions.New(t.Context(),
			userTurn("Tell me more", openai.UserMessage("Hello there"), openai.AssistantMessage("Echo: Hello there")),
			option.WithHeader(openaiapi.SessionHeader, session), option.WithResponseInto(&second))
		if err != nil {
			t.Fatal(err)
		}
		if got := second.Header.Get(openaiapi.SessionHeader); got != session || c.Choices[0].Message.Content != "Echo: Tell me more" {
			t.Fatalf("follow-up in session %q (want %q): %q", got, session, c.Choices[0].Message.Content)
		}
		want := []string{"user: Hello there", "assistant: Echo: Hello there", "user: Tell me more", "assistant: Echo: Tell me more"}
		if got := transcript(t, ts, session); !reflect.DeepEqual(got, want) {
			t.Fatalf("transcript = %q, want %q", got, want)
		}
	})
}

func TestTextParts(t *testing.T) {
	servertest.EachStore(t, servertest.Setup{Config: openaiCompat()}, func(t *testing.T, ts *servertest.Server) {
		client := newClient(ts, "unused")
		parts := []openai.ChatCompletionContentPartUnionParam{openai.TextContentPart("one"), openai.TextContentPart("two")}
		c, err := client.Chat.Completions.New(t.Context(), openai.ChatCompletionNewParams{Model: "hello",
			Messages: []openai.ChatCompletionMessageParamUnion{openai.SystemMessage("Be brief."), openai.UserMessage(parts)}})
		if err != nil || c.Choices[0].Message.Content != "Echo: one\ntwo" {
			t.Fatalf("completion = %+v (%v)", c, err)
		}
	})
}

func TestStreaming(t *testing.T) {
	servertest.EachStore(t, servertest.Setup{Config: openaiCompat()}, func(t *testing.T, ts *servertest.Server) {
		client := newClient(ts, "unused")
		var head *http.Response
		stream := client.Chat.Completions.NewStreaming(t.Context(), userTurn("one two three four five"), option.WithResponseInto(&head))
		acc := openai.ChatCompletionAccumulator{}
		var chunks, contentChunks int
		var firstRole string
		for stream.Next() {
			chunk := stream.Current()
			if !acc.AddChunk(chunk) {
				t.Fatalf("the accumulator refused chunk %d: %s", chunks, chunk.RawJSON())
			}
			if chunk.Object != "chat.completion.chunk" {
				t.Fatalf("chunk = %s", chunk.RawJSON())
			}
			if chunks == 0 && len(chunk.Choices) == 1 {
				firstRole = chunk.Choices[0].Delta.Role
			}
			if len(chunk.Choices) == 1 && chunk.Choices[0].Delta.Content != "" {
				contentChunks++
			}
			chunks++
		}
		if err := stream.Err(); err != nil {
			t.Fatal(err)
		}
		if firstRole != "assistant" || contentChunks < 2 {
			t.Fatalf("first role %q, %d content chunks", firstRole, contentChunks)
		}
		got := acc.Choices[0]
		if got.Message.Content != "Echo: one two three four five" || got.FinishReason != "stop" ||
			acc.ID != "chatcmpl-"+head.Header.Get("Harnest-Response-Id") || acc.Model != "hello" {
			t.Fatalf("accumulated %q %q %q %q", acc.ID, acc.Model, got.Message.Content, got.FinishReason)
		}
		if head.Header.Get(openaiapi.SessionHeader) == "" || !strings.HasPrefix(head.Header.Get("Content-Type"), "text/event-stream") {
			t.Fatalf("headers = %v", head.Header)
		}

		// On the wire: unnamed data frames, the role first, [DONE] last.
		raw := ts.Post("/v1/chat/completions", `{"model":"hello","stream":true,"messages":[{"role":"user","content":"hi"}]}`)
		body := string(raw.Body)
		if !strings.HasPrefix(body, `data: {"id":"chatcmpl-`) || !strings.Contains(body, `"delta":{"role":"assistant","content":""},"finish_reason":null}`) ||
			!strings.Contains(body, `"delta":{},"finish_reason":"stop"}`) || !strings.HasSuffix(body, "data: [DONE]\n\n") || strings.Contains(body, "event:") {
			t.Fatalf("stream = %s", body)
		}
	})
}

// thinking is the echo agent with a thinking delta, shown or not.
func thinking(shown bool) func(*config.Config) {
	return openaiCompat(echo(func(e *config.EchoBackend) { e.Thinking = true }),
		func(c *config.Config) { c.Spec.Output.Thinking = shown })
}

func TestThinkingFollowsThePolicy(t *testing.T) {
	for _, shown := range []bool{true, false} {
		want := ""
		if shown {
			want = "Repeating the input back."
		}
		t.Run(map[bool]string{true: "shown", false: "hidden"}[shown], func(t *testing.T) {
			ts := servertest.Start(t, "", servertest.Setup{Config: thinking(shown)})
			client := newClient(ts, "unused")
			stream := client.Chat.Completions.NewStreaming(t.Context(), userTurn("hi"))
			var reasoning strings.Builder
			for stream.Next() {
				chunk := stream.Current()
				if len(chunk.Choices) == 1 {
					if f, ok := chunk.Choices[0].Delta.JSON.ExtraFields["reasoning_content"]; ok {
						reasoning.WriteString(unquote(t, f.Raw()))
					}
				}
			}
			if err := stream.Err(); err != nil || reasoning.String() != want {
				t.Fatalf("streamed reasoning %q (%v), want %q", reasoning.String(), err, want)
			}
			c, err := client.Chat.Completions.New(t.Context(), userTurn("hi"))
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if f, ok := c.Choices[0].Message.JSON.ExtraFields["reasoning_content"]; ok {
				got = unquote(t, f.Raw())
			}
			if got != want || c.Choices[0].Message.Content != "Echo: hi" {
				t.Fatalf("reasoning %q, content %q; want reasoning %q", got, c.Choices[0].Message.Content, want)
			}
		})
	}
}
