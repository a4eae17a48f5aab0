package openaiapi_test

import (
	"context"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/server/servertest"
)

// openResponses turns /v1/responses on, then applies more changes.
func openResponses(more ...func(*config.Config)) func(*config.Config) {
	return func(c *config.Config) {
		c.Server.OpenResponses = true
		for _, f := range more {
			f(c)
		}
	}
}

// responsesClient is the official client's Responses service pointed at
// the server's /v1/, with no retries.
func responsesClient(ts *servertest.Server, apiKey string) *responses.ResponseService {
	c := openai.NewClient(option.WithBaseURL(ts.URL+"/v1/"), option.WithAPIKey(apiKey),
		option.WithMaxRetries(0), option.WithRequestTimeout(20*time.Second))
	return &c.Responses
}

// ask is a create request for the agent "hello" with a text input.
func ask(text string) responses.ResponseNewParams {
	return responses.ResponseNewParams{Model: "hello", Input: responses.ResponseNewParamsInputUnion{OfString: openai.String(text)}}
}

// testContext is bounded by the test's own timeout budget.
func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// streamed reads a stream to its end: every event, in order.
func streamed(t *testing.T, s interface {
	Next() bool
	Current() responses.ResponseStreamEventUnion
	Err() error
	Close() error
}) []responses.ResponseStreamEventUnion {
	t.Helper()
	defer s.Close()
	var events []responses.ResponseStreamEventUnion
	for s.Next() {
		events = append(events, s.Current())
	}
	if err := s.Err(); err != nil {
		t.Fatalf("stream: %v", err)
	}
	return events
}

// types lists the events' types.
func types(events []responses.ResponseStreamEventUnion) []string {
	out := make([]string, len(events))
	for i, e := range events {
		out[i] = e.Type
	}
	return out
}
