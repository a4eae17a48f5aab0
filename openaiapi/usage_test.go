package openaiapi_test

import (
	"path/filepath"
	"testing"

	"github.com/openai/openai-go/v3"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/testutil/fakemodel"
	"github.com/harnest/harnest/server/servertest"
)

// TestUsageIsExact serves the model agent of backend/testdata/model
// against the fake endpoint, whose reported usage must reach the client
// unchanged, as JSON and streamed.
func TestUsageIsExact(t *testing.T) {
	fake := fakemodel.Start(t)
	fake.SetDefault(func(fakemodel.Request) fakemodel.Reply {
		return fakemodel.Reply{Text: "Counted tokens for you", Usage: &fakemodel.Usage{PromptTokens: 11, CompletionTokens: 7}}
	})
	setup := servertest.Setup{Folder: filepath.Join("..", "backend", "testdata", "model"),
		Config: openaiCompat(func(c *config.Config) { c.Spec.Backend.Model.BaseURL = fake.URL })}
	servertest.EachStore(t, setup, func(t *testing.T, ts *servertest.Server) {
		client := newClient(ts, "unused")
		params := openai.ChatCompletionNewParams{Model: "model-test", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("count")}}
		c, err := client.Chat.Completions.New(t.Context(), params)
		if err != nil {
			t.Fatal(err)
		}
		if c.Choices[0].Message.Content != "Counted tokens for you" || c.Model != "model-test" {
			t.Fatalf("completion = %s", c.RawJSON())
		}
		if u := c.Usage; u.PromptTokens != 11 || u.CompletionTokens != 7 || u.TotalTokens != 18 {
			t.Fatalf("usage = %s", c.Usage.RawJSON())
		}

		params.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
		stream := client.Chat.Completions.NewStreaming(t.Context(), params)
		acc := openai.ChatCompletionAccumulator{}
		var last openai.ChatCompletionChunk
		for stream.Next() {
			last = stream.Current()
			if !acc.AddChunk(last) {
				t.Fatalf("the accumulator refused %s", last.RawJSON())
			}
		}
		if err := stream.Err(); err != nil {
			t.Fatal(err)
		}
		if len(last.Choices) != 0 || last.Usage.TotalTokens != 18 {
			t.Fatalf("the last chunk is not the usage chunk: %s", last.RawJSON())
		}
		if u := acc.Usage; u.PromptTokens != 11 || u.CompletionTokens != 7 || u.TotalTokens != 18 ||
			acc.Choices[0].Message.Content != "Counted tokens for you" {
			t.Fatalf("accumulated usage %+v, content %q", u, acc.Choices[0].Message.Content)
		}

		// Without include_usage no usage chunk is sent.
		params.StreamOptions = openai.ChatCompletionStreamOptionsParam{}
		stream = client.Chat.Completions.NewStreaming(t.Context(), params)
		for stream.Next() {
			if chunk := stream.Current(); chunk.JSON.Usage.Valid() {
				t.Fatalf("usage without include_usage: %s", chunk.RawJSON())
			}
		}
		if err := stream.Err(); err != nil {
			t.Fatal(err)
		}
	})
}
