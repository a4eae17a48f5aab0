package openaiapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3/responses"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/server/servertest"
)

// The official openai-go Responses client creates a response: the agent
// named by model answers, and the object is in the specification's shape.
func TestResponsesCreate(t *testing.T) {
	servertest.EachStore(t, servertest.Setup{Config: openResponses()}, func(t *testing.T, ts *servertest.Server) {
		client := responsesClient(ts, "")
		res, err := client.New(testContext(t), ask("hi there"))
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != "completed" || res.OutputText() != "Echo: hi there" || res.Object != "response" || res.Model != "hello" {
			t.Fatalf("response = %s %q %q %q", res.Status, res.OutputText(), res.Object, res.Model)
		}
		if len(res.Output) != 1 || res.Output[0].Type != "message" || res.Output[0].Role != "assistant" {
			t.Fatalf("output = %+v", res.Output)
		}
		got, err := client.Get(testContext(t), res.ID, responses.ResponseGetParams{})
		if err != nil {
			t.Fatal(err)
		}
		if got.ID != res.ID || got.Status != "completed" || got.OutputText() != "Echo: hi there" || got.Output[0].ID != res.Output[0].ID {
			t.Fatalf("retrieved = %s %s %q", got.ID, got.Status, got.OutputText())
		}
	})
}

// A stream carries the specification's events, numbered from 0 without a
// gap, and ends with response.completed holding the whole response.
func TestResponsesStream(t *testing.T) {
	setup := servertest.Setup{Config: openResponses(echo(func(e *config.EchoBackend) { e.Thinking = true }), func(c *config.Config) { c.Spec.Output.Thinking = true })}
	servertest.EachStore(t, setup, func(t *testing.T, ts *servertest.Server) {
		client := responsesClient(ts, "")
		events := streamed(t, client.NewStreaming(testContext(t), ask("count")))
		for i, e := range events {
			if e.SequenceNumber != int64(i) {
				t.Fatalf("event %d (%s) has sequence_number %d", i, e.Type, e.SequenceNumber)
			}
		}
		got := strings.Join(types(events), " ")
		for _, want := range []string{"response.created response.in_progress response.output_item.added response.content_part.added response.reasoning_text.delta",
			"response.reasoning_text.done response.content_part.done response.output_item.done response.output_item.added response.content_part.added response.output_text.delta",
			"response.output_text.done response.content_part.done response.output_item.done response.completed"} {
			if !strings.Contains(got, want) {
				t.Fatalf("events %s\nlack %s", got, want)
			}
		}
		last := events[len(events)-1].AsResponseCompleted().Response
		if last.Status != "completed" || last.OutputText() != "Echo: count" || len(last.Output) != 2 || last.Output[0].Type != "reasoning" {
			t.Fatalf("final response = %s %q %+v", last.Status, last.OutputText(), last.Output)
		}
		var text string
		for _, e := range events {
			if e.Type == "response.output_text.delta" {
				text += e.Delta
			}
		}
		if text != "Echo: count" {
			t.Fatalf("deltas = %q", text)
		}
	})
}

// A finished response's stream, read again with GET ?stream=true on
// another replica, is the live stream event for event: the same types,
// numbers and item IDs.
func TestResponsesReplayMatchesLiveStream(t *testing.T) {
	setup := servertest.Setup{Config: openResponses(echo(func(e *config.EchoBackend) { e.Thinking = true }), func(c *config.Config) { c.Spec.Output.Thinking = true })}
	servertest.EachStoreReplicas(t, 2, setup, func(t *testing.T, replicas []*servertest.Server) {
		live := streamed(t, responsesClient(replicas[0], "").NewStreaming(testContext(t), ask("again")))
		id := live[0].AsResponseCreated().Response.ID
		resp, err := http.Get(replicas[1].URL + "/v1/responses/" + id + "?stream=true")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		frames := testutil.ReadSSE(resp.Body)
		if len(frames) != len(live) {
			t.Fatalf("replay has %d events, live %d", len(frames), len(live))
		}
		for i, f := range frames {
			itemID, _ := f.Data["item_id"].(string)
			if f.Data["type"] != live[i].Type || f.Data["sequence_number"] != float64(live[i].SequenceNumber) || itemID != live[i].ItemID {
				t.Fatalf("replayed event %d = %v, live %s %d %s", i, f.Data, live[i].Type, live[i].SequenceNumber, live[i].ItemID)
			}
		}
	})
}
