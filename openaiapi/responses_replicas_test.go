package openaiapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/server/servertest"
)

// weatherTool is the function tool the tests offer.
func weatherTool() responses.ToolUnionParam {
	return responses.ToolParamOfFunction("get_weather", map[string]any{"type": "object",
		"properties": map[string]any{"location": map[string]any{"type": "string"}}}, false)
}

// A function tool round trip across replicas: the response from replica A
// ends with a function_call; its output, sent to replica B with
// previous_response_id, continues the same turn there, and the answer
// uses it.
func TestResponsesFunctionToolAcrossReplicas(t *testing.T) {
	setup := servertest.Setup{Config: openResponses(echo(func(e *config.EchoBackend) { e.ClientTool = "get_weather" }))}
	servertest.EachStoreReplicas(t, 2, setup, func(t *testing.T, replicas []*servertest.Server) {
		a, b := responsesClient(replicas[0], ""), responsesClient(replicas[1], "")
		params := ask("weather in Paris?")
		params.Tools = []responses.ToolUnionParam{weatherTool()}
		first, err := a.New(testContext(t), params)
		if err != nil {
			t.Fatal(err)
		}
		if first.Status != "completed" || len(first.Output) != 1 || first.Output[0].Type != "function_call" {
			t.Fatalf("first = %s %+v", first.Status, first.Output)
		}
		call := first.Output[0]
		if call.Name != "get_weather" || call.CallID == "" || !strings.Contains(call.Arguments.OfString, "Paris") {
			t.Fatalf("function_call = %q %q %q", call.Name, call.CallID, call.Arguments.OfString)
		}
		if len(first.Tools) != 1 || first.Tools[0].Name != "get_weather" {
			t.Fatalf("tools = %+v", first.Tools)
		}
		output := responses.ResponseInputItemParamOfFunctionCallOutput("sunny")
		output.OfFunctionCallOutput.CallID = openai.String(call.CallID)
		second, err := b.New(testContext(t), responses.ResponseNewParams{Model: "hello", PreviousResponseID: openai.String(first.ID),
			Input: responses.ResponseNewParamsInputUnion{OfInputItemList: responses.ResponseInputParam{output}}})
		if err != nil {
			t.Fatal(err)
		}
		if second.Status != "completed" || !strings.Contains(second.OutputText(), "get_weather said: sunny") || second.PreviousResponseID != first.ID {
			t.Fatalf("second = %s %q prev %q", second.Status, second.OutputText(), second.PreviousResponseID)
		}
		// The continuation reads the same on replica A.
		again, err := a.Get(testContext(t), second.ID, responses.ResponseGetParams{})
		if err != nil || again.OutputText() != second.OutputText() || again.Status != "completed" {
			t.Fatalf("continuation on A = %v %+v", err, again)
		}
	})
}

// previous_response_id continues the conversation in the same session,
// from either replica.
func TestResponsesPreviousResponseAcrossReplicas(t *testing.T) {
	servertest.EachStoreReplicas(t, 2, servertest.Setup{Config: openResponses()}, func(t *testing.T, replicas []*servertest.Server) {
		a, b := responsesClient(replicas[0], ""), responsesClient(replicas[1], "")
		var h1, h2 *http.Response
		first, err := a.New(testContext(t), ask("one"), option.WithResponseInto(&h1))
		if err != nil {
			t.Fatal(err)
		}
		params := ask("two")
		params.PreviousResponseID = openai.String(first.ID)
		second, err := b.New(testContext(t), params, option.WithResponseInto(&h2))
		if err != nil {
			t.Fatal(err)
		}
		session := h1.Header.Get("Harnest-Session-Id")
		if session == "" || h2.Header.Get("Harnest-Session-Id") != session || second.OutputText() != "Echo: two" {
			t.Fatalf("sessions %q %q, answer %q", session, h2.Header.Get("Harnest-Session-Id"), second.OutputText())
		}
		if got := transcript(t, replicas[0], session); strings.Join(got, "|") != "user: one|assistant: Echo: one|user: two|assistant: Echo: two" {
			t.Fatalf("transcript = %q", got)
		}
		items, err := b.InputItems.List(testContext(t), second.ID, responses.InputItemListParams{})
		if err != nil || len(items.Data) != 1 || items.Data[0].Role != "user" || !strings.Contains(items.Data[0].RawJSON(), `"text":"two"`) {
			t.Fatalf("input items = %v %+v", err, items)
		}
		bad := ask("three")
		bad.PreviousResponseID = openai.String("resp_nope")
		_, err = a.New(testContext(t), bad)
		mustAPIError(t, err, http.StatusNotFound, "invalid_request_error", "previous_response_not_found")
	})
}

// A background stream whose connection drops goes on; GET
// ?stream=true&starting_after=N on the other replica resumes it with the
// events after N, numbered as before, to response.completed.
func TestResponsesBackgroundResumeOnOtherReplica(t *testing.T) {
	setup := servertest.Setup{Config: openResponses(echo(func(e *config.EchoBackend) { e.DelayMs = 150 }))}
	servertest.EachStoreReplicas(t, 2, setup, func(t *testing.T, replicas []*servertest.Server) {
		a, b := responsesClient(replicas[0], ""), responsesClient(replicas[1], "")
		params := ask("resume me please")
		params.Background = openai.Bool(true)
		stream := a.NewStreaming(testContext(t), params)
		var id, text string
		last := int64(-1)
		for stream.Next() {
			e := stream.Current()
			if e.SequenceNumber != last+1 {
				t.Fatalf("sequence %d after %d", e.SequenceNumber, last)
			}
			last = e.SequenceNumber
			if e.Type == "response.created" {
				id = e.AsResponseCreated().Response.ID
			}
			if e.Type == "response.output_text.delta" {
				text += e.Delta
				break // the connection drops after the first delta
			}
		}
		stream.Close()
		if id == "" || text == "" {
			t.Fatalf("no response id or delta before the drop: %q %q %v", id, text, stream.Err())
		}
		resumed := streamed(t, b.GetStreaming(testContext(t), id, responses.ResponseGetParams{StartingAfter: openai.Int(last)}))
		if len(resumed) == 0 || resumed[0].SequenceNumber != last+1 {
			t.Fatalf("resumed events start at %v, want %d", types(resumed), last+1)
		}
		for i, e := range resumed {
			if e.SequenceNumber != last+1+int64(i) {
				t.Fatalf("resumed event %d (%s) has sequence_number %d", i, e.Type, e.SequenceNumber)
			}
			if e.Type == "response.output_text.delta" {
				text += e.Delta
			}
		}
		end := resumed[len(resumed)-1]
		if end.Type != "response.completed" || text != "Echo: resume me please" {
			t.Fatalf("resumed stream ends with %s, text %q", end.Type, text)
		}
		got, err := a.Get(testContext(t), id, responses.ResponseGetParams{})
		if err != nil || got.Status != "completed" || got.OutputText() != text || !got.Background {
			t.Fatalf("retrieved = %v %+v", err, got)
		}
	})
}

// A background response started on replica A is cancelled from replica B.
func TestResponsesCancelFromOtherReplica(t *testing.T) {
	setup := servertest.Setup{Config: openResponses(echo(func(e *config.EchoBackend) { e.DelayMs = 3000 }))}
	servertest.EachStoreReplicas(t, 2, setup, func(t *testing.T, replicas []*servertest.Server) {
		a, b := responsesClient(replicas[0], ""), responsesClient(replicas[1], "")
		params := ask("long answer")
		params.Background = openai.Bool(true)
		started, err := a.New(testContext(t), params)
		if err != nil {
			t.Fatal(err)
		}
		if started.Status != "queued" || !started.Background {
			t.Fatalf("started = %s background %v", started.Status, started.Background)
		}
		cancelled, err := b.Cancel(testContext(t), started.ID)
		if err != nil {
			t.Fatal(err)
		}
		if cancelled.Status != "cancelled" {
			t.Fatalf("cancelled = %s", cancelled.Status)
		}
		got, err := a.Get(testContext(t), started.ID, responses.ResponseGetParams{})
		if err != nil || got.Status != "cancelled" || !got.Background {
			t.Fatalf("retrieved on A = %v %+v", err, got)
		}
	})
}

// A bad token is the SDK's authentication error; another user's response
// is not found.
func TestResponsesAuth(t *testing.T) {
	servertest.EachStore(t, servertest.Setup{Config: openResponses(withTokens)}, func(t *testing.T, ts *servertest.Server) {
		_, err := responsesClient(ts, "wrong-token").New(testContext(t), ask("hi"))
		mustAPIError(t, err, http.StatusUnauthorized, "authentication_error", "invalid_api_key")
		res, err := responsesClient(ts, "alice-token").New(testContext(t), ask("hi"))
		if err != nil {
			t.Fatal(err)
		}
		_, err = responsesClient(ts, "bob-token").Get(testContext(t), res.ID, responses.ResponseGetParams{})
		mustAPIError(t, err, http.StatusNotFound, "invalid_request_error", "response_not_found")
		_, err = responsesClient(ts, "bob-token").Cancel(testContext(t), res.ID)
		mustAPIError(t, err, http.StatusNotFound, "invalid_request_error", "response_not_found")
	})
}
