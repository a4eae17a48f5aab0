package backend_test

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"slices"
	"strings"
	"testing"
	"time"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/harnest/harnest/internal/testutil/fakemodel"
	"github.com/harnest/harnest/internal/tracing/otlpreceiver"
	"github.com/harnest/harnest/server/servertest"
)

// A traced turn of the model backend with one tool call, exported to an
// OTLP/HTTP receiver of the test: the caller's trace is continued, the
// spans form the tree HTTP request → turn → two model calls and the tool
// call, with the GenAI attributes, the model endpoint is sent the trace,
// and no text of the turn is anywhere in what was exported.
func TestModelTurnIsTraced(t *testing.T) {
	const (
		callerSpan = "b7ad6b7169203331"
		inputText  = "INPUT-TEXT-never-in-a-span"
		argText    = "TOOL-ARGUMENT-never-in-a-span"
		outputText = "OUTPUT-TEXT-never-in-a-span"
	)
	receiver := otlpreceiver.Start(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.URL)
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "20") // milliseconds: export soon after each span ends
	eachModelServer(t, nil, func(t *testing.T, ts *servertest.Server, fake *fakemodel.Server) {
		traceID := hex.EncodeToString(randomBytes(t, 16)) // each store's turn in a trace of its own
		fake.Script(fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{
			{ID: "call_a", Name: "repeat", Arguments: `{"text":"` + argText + `"}`},
		}, Usage: &fakemodel.Usage{PromptTokens: 10, CompletionTokens: 4}},
			fakemodel.Reply{Text: outputText, Usage: &fakemodel.Usage{PromptTokens: 30, CompletionTokens: 2}})
		r := ts.Do("POST", "/responses", "application/json", []byte(`{"input":"`+inputText+`"}`),
			"traceparent", "00-"+traceID+"-"+callerSpan+"-01")
		servertest.MustStatus(t, r, 200)
		responseID, _ := r.JSON(t)["id"].(string)

		spans := receiver.WaitFor(10*time.Second, func(spans []*tracepb.Span) bool {
			return findSpan(spans, "POST /responses", traceID) != nil && len(spansOfTrace(spans, traceID)) >= 5
		})
		spans = spansOfTrace(spans, traceID)
		request := findSpan(spans, "POST /responses", traceID)
		if request == nil {
			t.Fatalf("no POST /responses span in trace %s; got %s", traceID, spanNames(spans))
		}
		if got := hex.EncodeToString(request.ParentSpanId); got != callerSpan || request.Kind != tracepb.Span_SPAN_KIND_SERVER {
			t.Errorf("request span: parent %s (want the caller's %s), kind %v", got, callerSpan, request.Kind)
		}
		if otlpreceiver.Attr(request, "http.route") != "/responses" || otlpreceiver.Attr(request, "http.response.status_code") != int64(200) {
			t.Errorf("request span attributes = %v", request.Attributes)
		}
		turn := childNamed(spans, request, "invoke_agent harnest")
		if turn == nil {
			t.Fatalf("no turn span under the request; got %s", spanNames(spans))
		}
		if otlpreceiver.Attr(turn, "harnest.response.id") != responseID || otlpreceiver.Attr(turn, "harnest.turn.status") != "completed" ||
			otlpreceiver.Attr(turn, "gen_ai.usage.input_tokens") != int64(40) || otlpreceiver.Attr(turn, "gen_ai.usage.output_tokens") != int64(6) {
			t.Errorf("turn span attributes = %v", turn.Attributes)
		}
		var calls []*tracepb.Span
		for _, s := range spans {
			if bytes.Equal(s.ParentSpanId, turn.SpanId) && s.Name == "chat test-model" {
				calls = append(calls, s)
			}
		}
		if len(calls) != 2 {
			t.Fatalf("%d model call spans under the turn, want 2; got %s", len(calls), spanNames(spans))
		}
		slices.SortFunc(calls, func(a, b *tracepb.Span) int { return int(a.StartTimeUnixNano - b.StartTimeUnixNano) })
		wantCalls := []struct {
			finish        string
			input, output int64
		}{{"tool_calls", 10, 4}, {"stop", 30, 2}}
		for i, want := range wantCalls {
			c := calls[i]
			finish, _ := otlpreceiver.Attr(c, "gen_ai.response.finish_reasons").([]string)
			if otlpreceiver.Attr(c, "gen_ai.operation.name") != "chat" || otlpreceiver.Attr(c, "gen_ai.request.model") != "test-model" ||
				!slices.Equal(finish, []string{want.finish}) || c.Kind != tracepb.Span_SPAN_KIND_CLIENT ||
				otlpreceiver.Attr(c, "gen_ai.usage.input_tokens") != want.input || otlpreceiver.Attr(c, "gen_ai.usage.output_tokens") != want.output {
				t.Errorf("model call %d attributes = %v", i+1, c.Attributes)
			}
		}
		tool := childNamed(spans, turn, "execute_tool repeat")
		if tool == nil {
			t.Fatalf("no tool call span under the turn; got %s", spanNames(spans))
		}
		if otlpreceiver.Attr(tool, "gen_ai.operation.name") != "execute_tool" || otlpreceiver.Attr(tool, "gen_ai.tool.name") != "repeat" ||
			otlpreceiver.Attr(tool, "gen_ai.tool.call.id") != "call_a" {
			t.Errorf("tool call attributes = %v", tool.Attributes)
		}

		// The model endpoint was sent each call's own span as traceparent.
		reqs := fake.Requests()
		if len(reqs) != 2 {
			t.Fatalf("%d model calls, want 2", len(reqs))
		}
		for i, req := range reqs {
			want := "00-" + traceID + "-" + hex.EncodeToString(calls[i].SpanId) + "-01"
			if got := req.Header.Get("Traceparent"); got != want {
				t.Errorf("model call %d: traceparent %q, want %q", i+1, got, want)
			}
		}
		raw := receiver.Raw()
		if !bytes.Contains(raw, []byte("execute_tool repeat")) {
			t.Fatal("the exported bytes do not hold the span names: the text checks below would prove nothing")
		}
		for _, text := range []string{inputText, argText, outputText, testKey, "instructions"} {
			if bytes.Contains(raw, []byte(text)) {
				t.Errorf("the exported spans contain %q", text)
			}
		}
		if p := receiver.Problems(); len(p) > 0 {
			t.Errorf("the receiver refused exports: %v", p)
		}
	})
}

func randomBytes(t *testing.T, n int) []byte {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return b
}

// spansOfTrace are the spans of one trace (hex ID).
func spansOfTrace(spans []*tracepb.Span, traceID string) []*tracepb.Span {
	var out []*tracepb.Span
	for _, s := range spans {
		if hex.EncodeToString(s.TraceId) == traceID {
			out = append(out, s)
		}
	}
	return out
}

// findSpan is the first span of the trace with that name, nil when none.
func findSpan(spans []*tracepb.Span, name, traceID string) *tracepb.Span {
	for _, s := range spansOfTrace(spans, traceID) {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// childNamed is the first child of parent with that name, nil when none.
func childNamed(spans []*tracepb.Span, parent *tracepb.Span, name string) *tracepb.Span {
	for _, s := range spans {
		if s.Name == name && bytes.Equal(s.ParentSpanId, parent.SpanId) {
			return s
		}
	}
	return nil
}

// spanNames lists the spans for failure messages.
func spanNames(spans []*tracepb.Span) string {
	names := make([]string, len(spans))
	for i, s := range spans {
		names[i] = s.Name
	}
	return strings.Join(names, ", ")
}
