package fakemodel_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/harnest/harnest/internal/testutil/fakemodel"
)

// post sends body to the fake's completions route.
func post(t *testing.T, ctx context.Context, s *fakemodel.Server, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+"/chat/completions", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer k")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// events reads a stream's data lines up to [DONE], decoded.
func events(t *testing.T, body io.Reader) []map[string]any {
	t.Helper()
	var out []map[string]any
	scanner := bufio.NewScanner(body)
	for scanner.Scan() {
		data, ok := strings.CutPrefix(scanner.Text(), "data: ")
		if !ok {
			continue
		}
		if data == "[DONE]" {
			return out
		}
		var event map[string]any
		if err := json.Unmarshal([]byte(data), &event); err != nil {
			t.Fatalf("event %q: %v", data, err)
		}
		out = append(out, event)
	}
	t.Fatal("the stream ended without [DONE]")
	return nil
}

const streamed = `{"model":"m1","stream":true,"messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}],"tools":[{"type":"function","function":{"name":"t1"}}]}`

func TestStreamedReply(t *testing.T) {
	s := fakemodel.Start(t)
	s.Script(fakemodel.Reply{Reasoning: "r1 r2", Text: "Hello world",
		ToolCalls: []fakemodel.ToolCall{{ID: "c1", Name: "t1", Arguments: `{"a":1}`}},
		Usage:     &fakemodel.Usage{PromptTokens: 3, CompletionTokens: 4}})
	resp := post(t, t.Context(), s, streamed)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("status %d, type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	var reasoning, text, args strings.Builder
	var finish string
	var usage map[string]any
	for _, e := range events(t, resp.Body) {
		if e["model"] != "m1" || e["object"] != "chat.completion.chunk" {
			t.Fatalf("event %v", e)
		}
		if u, ok := e["usage"].(map[string]any); ok {
			usage = u
		}
		choices := e["choices"].([]any)
		if len(choices) == 0 {
			continue
		}
		choice := choices[0].(map[string]any)
		delta := choice["delta"].(map[string]any)
		reasoning.WriteString(str(delta["reasoning_content"]))
		text.WriteString(str(delta["content"]))
		if calls, ok := delta["tool_calls"].([]any); ok {
			fn := calls[0].(map[string]any)["function"].(map[string]any)
			args.WriteString(str(fn["arguments"]))
		}
		if f, ok := choice["finish_reason"].(string); ok {
			finish = f
		}
	}
	if reasoning.String() != "r1 r2" || text.String() != "Hello world" || args.String() != `{"a":1}` || finish != "tool_calls" {
		t.Fatalf("reasoning %q, text %q, arguments %q, finish %q", reasoning.String(), text.String(), args.String(), finish)
	}
	if usage["prompt_tokens"] != 3.0 || usage["total_tokens"] != 7.0 {
		t.Fatalf("usage = %v", usage)
	}
	reqs := s.Requests()
	if len(reqs) != 1 || reqs[0].Model != "m1" || !reqs[0].Stream || reqs[0].Messages[0].Text() != "a\nb" ||
		!reflect.DeepEqual(reqs[0].ToolNames(), []string{"t1"}) || reqs[0].Header.Get("Authorization") != "Bearer k" {
		t.Fatalf("requests = %+v", reqs)
	}
}

func str(v any) string { s, _ := v.(string); return s }

func TestScriptThenDefault(t *testing.T) {
	s := fakemodel.Start(t)
	s.Script(fakemodel.Reply{Status: 429, Header: map[string]string{"Retry-After": "3"}}, fakemodel.Reply{JSON: true, Text: "json"})
	s.SetDefault(func(req fakemodel.Request) fakemodel.Reply {
		return fakemodel.Reply{JSON: true, Text: "default for " + req.Model}
	})

	resp := post(t, t.Context(), s, streamed)
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "3" || !strings.Contains(string(body), `"error"`) {
		t.Fatalf("first reply: %d %v %s", resp.StatusCode, resp.Header, body)
	}
	for _, want := range []string{"json", "default for m1"} {
		var completion struct {
			Choices []struct {
				Message struct{ Content string } `json:"message"`
			} `json:"choices"`
		}
		resp := post(t, t.Context(), s, streamed)
		if err := json.NewDecoder(resp.Body).Decode(&completion); err != nil || completion.Choices[0].Message.Content != want {
			t.Fatalf("reply = %+v (%v), want %q", completion, err, want)
		}
	}
	if n := len(s.Requests()); n != 3 {
		t.Fatalf("%d requests recorded, want 3", n)
	}
}

func TestUnstreamedRequestGetsJSON(t *testing.T) {
	s := fakemodel.Start(t)
	resp := post(t, t.Context(), s, `{"model":"m","messages":[{"role":"user","content":"hi"}]}`)
	if resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("type %q", resp.Header.Get("Content-Type"))
	}
	if got := s.Requests()[0].Messages[0].Text(); got != "hi" {
		t.Fatalf("text = %q", got)
	}
}

func TestMalformedRequestAndUnknownRoute(t *testing.T) {
	s := fakemodel.Start(t)
	if resp := post(t, t.Context(), s, `{nope`); resp.StatusCode != 400 {
		t.Fatalf("status %d, want 400", resp.StatusCode)
	}
	if reqs := s.Requests(); len(reqs) != 1 || string(reqs[0].Body) != `{nope` {
		t.Fatalf("requests = %+v", reqs)
	}
	resp, err := http.Get(s.URL + "/models")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Fatalf("status %d, want 404", resp.StatusCode)
	}
}

func TestSlowStreamStopsWhenTheClientLeaves(t *testing.T) {
	s := fakemodel.Start(t)
	s.Script(fakemodel.Reply{Text: "a b c", ChunkDelay: time.Hour})
	ctx, cancel := context.WithCancel(t.Context())
	resp := post(t, ctx, s, streamed)
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "data: ") {
		t.Fatalf("first line %q (%v)", line, err)
	}
	cancel() // the handler returns at once; the test's cleanup would hang otherwise
}
