package chat_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/harnest/harnest/backend/chat"
	"github.com/harnest/harnest/internal/testutil/fakemodel"
)

func TestStreamedTextArrivesInOrder(t *testing.T) {
	h := newHarness(t, nil)
	h.fake.Script(fakemodel.Reply{Text: "The quick brown fox", Model: "reported-model"})
	var deltas []string
	res, err := h.ask(t, chat.Handlers{Text: func(d string) error { deltas = append(deltas, d); return nil }})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"The ", "quick ", "brown ", "fox"}; !reflect.DeepEqual(deltas, want) {
		t.Fatalf("deltas = %q, want %q", deltas, want)
	}
	if res.Text != "The quick brown fox" || res.FinishReason != "stop" || res.Model != "reported-model" {
		t.Fatalf("result = %+v", res)
	}
	if res.Provider != "127.0.0.1" || res.Usage != nil || res.Raw != nil || res.ToolCalls != nil {
		t.Fatalf("result = %+v, want provider 127.0.0.1 and no usage or tool calls", res)
	}
}

func TestReasoningInBothFieldNames(t *testing.T) {
	for _, field := range []string{"reasoning_content", "reasoning"} {
		t.Run(field, func(t *testing.T) {
			h := newHarness(t, nil)
			h.fake.Script(fakemodel.Reply{Reasoning: "Let me think", ReasoningField: field, Text: "Done"})
			var order []string
			res, err := h.ask(t, chat.Handlers{
				Text:      func(d string) error { order = append(order, "text:"+d); return nil },
				Reasoning: func(d string) error { order = append(order, "reasoning:"+d); return nil },
			})
			if err != nil {
				t.Fatal(err)
			}
			want := []string{"reasoning:Let ", "reasoning:me ", "reasoning:think", "text:Done"}
			if !reflect.DeepEqual(order, want) {
				t.Fatalf("deltas = %q, want %q", order, want)
			}
			if res.Reasoning != "Let me think" || res.Text != "Done" {
				t.Fatalf("result = %+v", res)
			}
		})
	}
}

func TestUsageIsExact(t *testing.T) {
	h := newHarness(t, nil)
	h.fake.Script(fakemodel.Reply{Text: "ok", Usage: &fakemodel.Usage{PromptTokens: 123, CompletionTokens: 45}})
	res, err := h.ask(t, chat.Handlers{})
	if err != nil {
		t.Fatal(err)
	}
	if want := (chat.Usage{InputTokens: 123, OutputTokens: 45, TotalTokens: 168}); res.Usage == nil || *res.Usage != want {
		t.Fatalf("usage = %+v, want %+v", res.Usage, want)
	}
	var raw map[string]int
	if err := json.Unmarshal(res.Raw, &raw); err != nil || raw["prompt_tokens"] != 123 || raw["total_tokens"] != 168 {
		t.Fatalf("raw usage = %s (%v)", res.Raw, err)
	}
}

func TestOneToolCall(t *testing.T) {
	h := newHarness(t, nil)
	h.fake.Script(fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{
		{ID: "call_abc", Name: "get_weather", Arguments: `{"city":"Paris","unit":"c"}`},
	}})
	res, err := h.ask(t, chat.Handlers{})
	if err != nil {
		t.Fatal(err)
	}
	want := []chat.ToolCall{{ID: "call_abc", Type: "function", Function: chat.FunctionCall{Name: "get_weather", Arguments: `{"city":"Paris","unit":"c"}`}}}
	if !reflect.DeepEqual(res.ToolCalls, want) || res.FinishReason != "tool_calls" || res.Text != "" {
		t.Fatalf("result = %+v, want tool calls %+v", res, want)
	}
}

func TestSeveralToolCalls(t *testing.T) {
	h := newHarness(t, nil)
	h.fake.Script(fakemodel.Reply{Text: "Checking both.", ToolCalls: []fakemodel.ToolCall{
		{ID: "call_1a", Name: "lookup", Arguments: `{"q":"first question"}`},
		{Name: "search", Arguments: `{"terms":["a","b"],"limit":3}`}, // no ID: one is made up
		{ID: "call_3c", Name: "noargs", Arguments: ""},
	}})
	res, err := h.ask(t, chat.Handlers{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.ToolCalls) != 3 {
		t.Fatalf("tool calls = %+v, want 3", res.ToolCalls)
	}
	wantIDs := []string{"call_1a", "call_2", "call_3c"}
	wantNames := []string{"lookup", "search", "noargs"}
	wantArgs := []string{`{"q":"first question"}`, `{"terms":["a","b"],"limit":3}`, `{}`}
	for i, call := range res.ToolCalls {
		if call.ID != wantIDs[i] || call.Function.Name != wantNames[i] || call.Function.Arguments != wantArgs[i] || call.Type != "function" {
			t.Errorf("call %d = %+v, want id %s, name %s, arguments %s", i, call, wantIDs[i], wantNames[i], wantArgs[i])
		}
		if !json.Valid([]byte(call.Function.Arguments)) {
			t.Errorf("call %d arguments are not JSON: %s", i, call.Function.Arguments)
		}
	}
	if res.Text != "Checking both." {
		t.Fatalf("text = %q", res.Text)
	}
}

func TestToolCallFragmentsWithoutIndex(t *testing.T) {
	h := newHarness(t, nil)
	h.fake.Script(fakemodel.Reply{Raw: "" +
		`data: {"choices":[{"delta":{"tool_calls":[{"id":"a","type":"function","function":{"name":"one","arguments":"{\"x\":"}}]}}]}` + "\n\n" +
		`data: {"choices":[{"delta":{"tool_calls":[{"function":{"arguments":"1}"}}]}}]}` + "\n\n" +
		`data: {"choices":[{"delta":{"tool_calls":[{"id":"b","type":"function","function":{"name":"two","arguments":"{}"}}]}}]}` + "\n\n" +
		`data: {"choices":[{"delta":{},"finish_reason":"tool_calls"}]}` + "\n\n" +
		"data: [DONE]\n\n"})
	res, err := h.ask(t, chat.Handlers{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.ToolCalls) != 2 || res.ToolCalls[0].Function.Arguments != `{"x":1}` || res.ToolCalls[1].Function.Name != "two" {
		t.Fatalf("tool calls = %+v", res.ToolCalls)
	}
}

func TestHandEventStreamShapes(t *testing.T) {
	// CRLF line ends, comments, event: and id: fields, data split over two
	// lines, and a stream that ends after its finish reason without [DONE].
	h := newHarness(t, nil)
	h.fake.Script(fakemodel.Reply{Raw: ": keep-alive\r\n\r\n" +
		"event: message\r\nid: 1\r\ndata: {\"model\":\"m\",\r\ndata: \"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\r\n\r\n" +
		"data:{\"choices\":[{\"delta\":{\"content\":[{\"type\":\"text\",\"text\":\" there\"}]},\"finish_reason\":\"length\"}]}\n\n"})
	res, err := h.ask(t, chat.Handlers{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "Hi there" || res.FinishReason != "length" || res.Model != "m" {
		t.Fatalf("result = %+v", res)
	}
}

func TestJSONReplyToAStreamedRequest(t *testing.T) {
	h := newHarness(t, nil)
	h.fake.Script(fakemodel.Reply{JSON: true, Reasoning: "hmm", Text: "Whole answer",
		ToolCalls: []fakemodel.ToolCall{{Name: "a", Arguments: `{"n":1}`}, {Name: "b", Arguments: `{"n":2}`}},
		Usage:     &fakemodel.Usage{PromptTokens: 7, CompletionTokens: 3}})
	var texts, reasoning []string
	res, err := h.ask(t, chat.Handlers{
		Text:      func(d string) error { texts = append(texts, d); return nil },
		Reasoning: func(d string) error { reasoning = append(reasoning, d); return nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(texts, []string{"Whole answer"}) || !reflect.DeepEqual(reasoning, []string{"hmm"}) {
		t.Fatalf("deltas: text %q, reasoning %q", texts, reasoning)
	}
	if len(res.ToolCalls) != 2 || res.ToolCalls[0].ID != "call_1" || res.ToolCalls[1].Function.Name != "b" {
		t.Fatalf("tool calls = %+v", res.ToolCalls)
	}
	if res.Usage == nil || res.Usage.TotalTokens != 10 || res.FinishReason != "tool_calls" {
		t.Fatalf("result = %+v", res)
	}
}

func TestHandlerErrorStopsTheCall(t *testing.T) {
	h := newHarness(t, nil)
	h.fake.Script(fakemodel.Reply{Text: "one two three four"})
	stop := errors.New("the response is over")
	var calls int
	_, err := h.ask(t, chat.Handlers{Text: func(string) error { calls++; return stop }})
	if err != stop {
		t.Fatalf("error = %v, want the handler's error as is", err)
	}
	if calls != 1 {
		t.Fatalf("the handler was called %d times, want 1", calls)
	}
}

func TestMalformedChunk(t *testing.T) {
	h := newHarness(t, nil)
	h.fake.Script(fakemodel.Reply{Raw: "data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\ndata: {not json\n\n"})
	_, err := h.ask(t, chat.Handlers{})
	wantCode(t, err, chat.CodeBadResponse)
	if !strings.Contains(h.log.String(), "not json") {
		t.Fatalf("the log does not hold the malformed chunk:\n%s", h.log)
	}
}

func TestStreamCutShort(t *testing.T) {
	h := newHarness(t, nil)
	h.fake.Script(fakemodel.Reply{Raw: "data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\n"})
	_, err := h.ask(t, chat.Handlers{})
	wantCode(t, err, chat.CodeBadResponse)
}

func TestErrorObjectInStream(t *testing.T) {
	h := newHarness(t, nil)
	h.fake.Script(fakemodel.Reply{Raw: "data: {\"error\":{\"message\":\"upstream overloaded\",\"code\":502}}\n\n"})
	_, err := h.ask(t, chat.Handlers{})
	e := wantCode(t, err, chat.CodeUnavailable)
	if strings.Contains(e.Detail, "overloaded") || !strings.Contains(h.log.String(), "upstream overloaded") {
		t.Fatalf("detail %q must not, and the log must, hold the provider's text; log:\n%s", e.Detail, h.log)
	}
}

func TestBodyNeitherEventsNorJSON(t *testing.T) {
	h := newHarness(t, nil)
	h.fake.Script(fakemodel.Reply{Raw: "<html>hello</html>", Header: map[string]string{"Content-Type": "text/html"}})
	_, err := h.ask(t, chat.Handlers{})
	wantCode(t, err, chat.CodeBadResponse)

	h.fake.Script(fakemodel.Reply{Raw: "just some words\nand more\n", Header: map[string]string{"Content-Type": "text/plain"}})
	_, err = h.ask(t, chat.Handlers{})
	wantCode(t, err, chat.CodeBadResponse)

	h.fake.Script(fakemodel.Reply{Raw: "{not json", Header: map[string]string{"Content-Type": "application/json"}})
	_, err = h.ask(t, chat.Handlers{})
	wantCode(t, err, chat.CodeBadResponse)
}

func TestJSONReplyThatIsNotACompletion(t *testing.T) {
	h := newHarness(t, nil)
	json := map[string]string{"Content-Type": "application/json"}
	h.fake.Script(fakemodel.Reply{Raw: `{"error":{"message":"model overloaded"}}`, Header: json})
	_, err := h.ask(t, chat.Handlers{})
	wantCode(t, err, chat.CodeUnavailable)

	h.fake.Script(fakemodel.Reply{Raw: `{"choices":[]}`, Header: json})
	_, err = h.ask(t, chat.Handlers{})
	wantCode(t, err, chat.CodeBadResponse)

	h.fake.Script(fakemodel.Reply{Raw: `{"choices":[{"message":{"content":42}}]}`, Header: json})
	_, err = h.ask(t, chat.Handlers{})
	wantCode(t, err, chat.CodeBadResponse)
}
