package openaiapi_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/server/servertest"
)

// sessionGone waits (bounded) until the session is deleted.
func sessionGone(t *testing.T, ts *servertest.Server, session string) {
	t.Helper()
	for range 200 {
		if ts.Get("/sessions/"+session).Status == http.StatusNotFound {
			return
		}
		time.Sleep(25 * time.Millisecond)
	}
	t.Fatalf("session %s of a response that is not stored is still there", session)
}

// notFound checks that nothing finds a response that is not stored: GET,
// input_items, cancel and previous_response_id answer 404, on every
// replica.
func notFound(t *testing.T, replicas []*servertest.Server, id string) {
	t.Helper()
	for _, ts := range replicas {
		for _, r := range []servertest.Reply{ts.Get("/v1/responses/" + id), ts.Get("/v1/responses/" + id + "/input_items"), ts.Post("/v1/responses/"+id+"/cancel", "")} {
			if r.Status != http.StatusNotFound || !strings.Contains(string(r.Body), "response_not_found") {
				t.Fatalf("a response that is not stored: %d %s", r.Status, r.Body)
			}
		}
		params := ask("again")
		params.PreviousResponseID = openai.String(id)
		_, err := responsesClient(ts, "").New(testContext(t), params)
		mustAPIError(t, err, http.StatusNotFound, "invalid_request_error", "previous_response_not_found")
	}
}

// "store": false: the response is answered (JSON or streamed) and says it
// is not stored; then nothing finds it, and its turn left nothing behind
// (its session, transcript, receipt and events are deleted).
func TestResponsesStoreFalse(t *testing.T) {
	servertest.EachStoreReplicas(t, 2, servertest.Setup{Config: openResponses()}, func(t *testing.T, replicas []*servertest.Server) {
		client := responsesClient(replicas[0], "")
		params := ask("forget me")
		params.Store = openai.Bool(false)
		var h *http.Response
		res, err := client.New(testContext(t), params, option.WithResponseInto(&h))
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != "completed" || res.OutputText() != "Echo: forget me" || !strings.Contains(res.RawJSON(), `"store":false`) {
			t.Fatalf("response = %s %q store %v", res.Status, res.OutputText(), !strings.Contains(res.RawJSON(), `"store":false`))
		}
		session := h.Header.Get("Harnest-Session-Id")
		// A JSON answer comes once the session is deleted.
		if r := replicas[1].Get("/sessions/" + session); r.Status != http.StatusNotFound {
			t.Fatalf("session after a JSON answer: %d %s", r.Status, r.Body)
		}
		notFound(t, replicas, res.ID)

		events := streamed(t, client.NewStreaming(testContext(t), params, option.WithResponseInto(&h)))
		last := events[len(events)-1].AsResponseCompleted().Response
		if last.Status != "completed" || !strings.Contains(last.RawJSON(), `"store":false`) || last.OutputText() != "Echo: forget me" {
			t.Fatalf("streamed = %s %v %q", last.Status, !strings.Contains(last.RawJSON(), `"store":false`), last.OutputText())
		}
		sessionGone(t, replicas[1], h.Header.Get("Harnest-Session-Id"))
		notFound(t, replicas, last.ID)

		// It cannot continue a stored conversation.
		stored, err := client.New(testContext(t), ask("kept"))
		if err != nil {
			t.Fatal(err)
		}
		params.PreviousResponseID = openai.String(stored.ID)
		_, err = client.New(testContext(t), params)
		if e := mustAPIError(t, err, http.StatusBadRequest, "invalid_request_error", "invalid_value"); e.Param != "store" {
			t.Fatalf("param = %q", e.Param)
		}
	})
}

// A response that is not stored and ends with a function_call keeps its
// turn until the caller answers with the call_id; the continuation is not
// stored either, and once it ends nothing is left.
func TestResponsesStoreFalseFunctionCall(t *testing.T) {
	setup := servertest.Setup{Config: openResponses(echo(func(e *config.EchoBackend) { e.ClientTool = "get_weather" }))}
	servertest.EachStoreReplicas(t, 2, setup, func(t *testing.T, replicas []*servertest.Server) {
		params := ask("weather in Oslo?")
		params.Tools = []responses.ToolUnionParam{weatherTool()}
		params.Store = openai.Bool(false)
		var h *http.Response
		first, err := responsesClient(replicas[0], "").New(testContext(t), params, option.WithResponseInto(&h))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(first.RawJSON(), `"store":false`) || len(first.Output) != 1 || first.Output[0].Type != "function_call" {
			t.Fatalf("first = %v %+v", !strings.Contains(first.RawJSON(), `"store":false`), first.Output)
		}
		session := h.Header.Get("Harnest-Session-Id")
		output := responses.ResponseInputItemParamOfFunctionCallOutput("snow")
		output.OfFunctionCallOutput.CallID = openai.String(first.Output[0].CallID)
		second, err := responsesClient(replicas[1], "").New(testContext(t), responses.ResponseNewParams{Model: "hello",
			Input: responses.ResponseNewParamsInputUnion{OfInputItemList: responses.ResponseInputParam{output}}})
		if err != nil {
			t.Fatal(err)
		}
		if second.Status != "completed" || !strings.Contains(second.RawJSON(), `"store":false`) || !strings.Contains(second.OutputText(), "get_weather said: snow") {
			t.Fatalf("second = %s %v %q", second.Status, !strings.Contains(second.RawJSON(), `"store":false`), second.OutputText())
		}
		sessionGone(t, replicas[0], session)
		notFound(t, replicas, first.ID)
		notFound(t, replicas, second.ID)
	})
}
