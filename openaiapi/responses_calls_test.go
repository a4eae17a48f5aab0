package openaiapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/server/servertest"
)

// twoCallsAgent asks the client for two tools in one step when the
// transport takes them together (else one after the other), then answers
// with both outputs.
var twoCallsAgent = runtime.AgentFunc(func(ctx context.Context, turn *runtime.Turn, emit runtime.Emit) error {
	reqs := []runtime.ClientToolRequest{
		{Name: "get_weather", Arguments: json.RawMessage(`{"location":"Paris"}`), CallID: "call_a"},
		{Name: "get_weather", Arguments: json.RawMessage(`{"location":"Oslo"}`), CallID: "call_b"},
	}
	var outputs []json.RawMessage
	if turn.RequestClientTools != nil {
		var err error
		if outputs, err = turn.RequestClientTools(ctx, reqs); err != nil {
			return err
		}
	} else {
		for _, req := range reqs {
			out, err := turn.RequestClientTool(ctx, req)
			if err != nil {
				return err
			}
			outputs = append(outputs, out)
		}
	}
	return emit(runtime.Event{Type: runtime.EventTextDelta, Delta: fmt.Sprintf("Paris: %s, Oslo: %s", outputs[0], outputs[1])})
})

// functionOutput is a function_call_output item.
func functionOutput(callID, output string) responses.ResponseInputItemUnionParam {
	item := responses.ResponseInputItemParamOfFunctionCallOutput(output)
	item.OfFunctionCallOutput.CallID = openai.String(callID)
	return item
}

// When the agent asks for two client tools at once, the response carries
// both function_call items (the stream announces each with
// output_item.added and done); the caller answers both in its next
// request, in any order, on any replica. An answer that leaves one out is
// refused, naming its call_id, and answers nothing.
func TestResponsesSeveralFunctionCalls(t *testing.T) {
	setup := servertest.Setup{Config: openResponses(), Agent: twoCallsAgent}
	servertest.EachStoreReplicas(t, 2, setup, func(t *testing.T, replicas []*servertest.Server) {
		a, b := responsesClient(replicas[0], ""), responsesClient(replicas[1], "")
		params := ask("weather in Paris and Oslo?")
		params.Tools = []responses.ToolUnionParam{weatherTool()}
		events := streamed(t, a.NewStreaming(testContext(t), params))
		var added, done []string
		for _, e := range events {
			switch {
			case e.Type == "response.output_item.added" && e.Item.Type == "function_call":
				added = append(added, e.Item.CallID)
			case e.Type == "response.output_item.done" && e.Item.Type == "function_call":
				done = append(done, e.Item.Arguments.OfString)
			}
		}
		first := events[len(events)-1].AsResponseCompleted().Response
		if len(added) != 2 || len(done) != 2 || !strings.Contains(done[0], "Paris") || !strings.Contains(done[1], "Oslo") {
			t.Fatalf("stream announced calls %q with arguments %q", added, done)
		}
		if len(first.Output) != 2 || first.Output[0].CallID != added[0] || first.Output[1].CallID != added[1] || added[0] == added[1] {
			t.Fatalf("output = %+v", first.Output)
		}
		// One output is not enough: refused, naming the call left out.
		_, err := b.New(testContext(t), responses.ResponseNewParams{Model: "hello", PreviousResponseID: openai.String(first.ID),
			Input: responses.ResponseNewParamsInputUnion{OfInputItemList: responses.ResponseInputParam{functionOutput(added[0], "sunny")}}})
		if e := mustAPIError(t, err, http.StatusBadRequest, "invalid_request_error", "missing_function_call_output"); !strings.Contains(e.Message, added[1]) {
			t.Fatalf("message %q does not name %s", e.Message, added[1])
		}
		// Both, in the other order, on the other replica.
		second, err := b.New(testContext(t), responses.ResponseNewParams{Model: "hello", PreviousResponseID: openai.String(first.ID),
			Input: responses.ResponseNewParamsInputUnion{OfInputItemList: responses.ResponseInputParam{
				functionOutput(added[1], "snow"), functionOutput(added[0], "sunny")}}})
		if err != nil {
			t.Fatal(err)
		}
		if second.Status != "completed" || second.OutputText() != `Paris: "sunny", Oslo: "snow"` {
			t.Fatalf("second = %s %q", second.Status, second.OutputText())
		}
		items, err := a.InputItems.List(testContext(t), second.ID, responses.InputItemListParams{Order: responses.InputItemListParamsOrderAsc})
		if err != nil || len(items.Data) != 2 || items.Data[0].CallID != added[1] || items.Data[0].Type != "function_call_output" {
			t.Fatalf("input items = %v %+v", err, items)
		}
	})
}

// "parallel_tool_calls": false asks for one call at a time: each response
// carries one function_call.
func TestResponsesOneFunctionCallAtATime(t *testing.T) {
	servertest.EachStore(t, servertest.Setup{Config: openResponses(), Agent: twoCallsAgent}, func(t *testing.T, ts *servertest.Server) {
		client := responsesClient(ts, "")
		params := ask("weather?")
		params.Tools = []responses.ToolUnionParam{weatherTool()}
		params.ParallelToolCalls = openai.Bool(false)
		res, err := client.New(testContext(t), params)
		if err != nil {
			t.Fatal(err)
		}
		for _, output := range []string{"sunny", "snow"} {
			if len(res.Output) != 1 || res.Output[0].Type != "function_call" {
				t.Fatalf("output = %+v", res.Output)
			}
			res, err = client.New(testContext(t), responses.ResponseNewParams{Model: "hello", PreviousResponseID: openai.String(res.ID),
				ParallelToolCalls: openai.Bool(false),
				Input:             responses.ResponseNewParamsInputUnion{OfInputItemList: responses.ResponseInputParam{functionOutput(res.Output[0].CallID, output)}}})
			if err != nil {
				t.Fatal(err)
			}
		}
		if res.OutputText() != `Paris: "sunny", Oslo: "snow"` {
			t.Fatalf("answer = %q", res.OutputText())
		}
	})
}
