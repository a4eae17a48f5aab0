package chat_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/harnest/harnest/backend/chat"
)

// bodyOf decodes the only request the fake got.
func bodyOf(t *testing.T, h *harness) map[string]json.RawMessage {
	t.Helper()
	reqs := h.fake.Requests()
	if len(reqs) != 1 {
		t.Fatalf("the endpoint got %d requests, want 1", len(reqs))
	}
	var body map[string]json.RawMessage
	if err := json.Unmarshal(reqs[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	return body
}

func TestRequestBodyWithoutOptions(t *testing.T) {
	h := newHarness(t, nil)
	if _, err := h.ask(t, chat.Handlers{}); err != nil {
		t.Fatal(err)
	}
	body := bodyOf(t, h)
	for _, absent := range []string{"tools", "temperature", "max_tokens"} {
		if _, ok := body[absent]; ok {
			t.Errorf("the body has %q although it was not set: %s", absent, body[absent])
		}
	}
	want := map[string]string{
		"model": `"test-model"`, "stream": `true`, "stream_options": `{"include_usage":true}`,
		"messages": `[{"role":"user","content":"Hello"}]`,
	}
	for key, value := range want {
		if string(body[key]) != value {
			t.Errorf("%s = %s, want %s", key, body[key], value)
		}
	}
	header := h.fake.Requests()[0].Header
	if header.Get("Authorization") != "" || header.Get("Accept") != "text/event-stream" || header.Get("Content-Type") != "application/json" {
		t.Fatalf("headers = %v", header)
	}
}

func TestRequestBodyWithEverything(t *testing.T) {
	temperature, maxTokens := 0.25, 512
	h := newHarness(t, func(o *chat.Options) {
		o.APIKey = "key-1"
		o.Headers = map[string]string{"X-Title": "harnest tests"}
		o.Temperature, o.MaxOutputTokens = &temperature, &maxTokens
		o.BaseURL += "/" // joined without a double slash
	})
	req := chat.Request{
		Messages: []chat.Message{
			{Role: chat.RoleSystem, Content: chat.Text("Be brief.")},
			{Role: chat.RoleUser, Content: chat.Content{Parts: []chat.Part{
				{Type: chat.PartText, Text: "What is this?"},
				{Type: chat.PartImageURL, ImageURL: &chat.ImageURL{URL: "data:image/png;base64,iVBORw0KGgo="}},
			}}},
			{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{{ID: "c1", Function: chat.FunctionCall{Name: "look", Arguments: `{}`}}}},
			{Role: chat.RoleTool, ToolCallID: "c1", Content: chat.Text(`{"seen":"a cat"}`)},
		},
		Tools: []chat.Tool{{Function: chat.FunctionDef{Name: "look", Description: "Looks.", Parameters: json.RawMessage(`{"type":"object"}`)}}},
	}
	if _, err := h.client.Complete(t.Context(), req, chat.Handlers{}); err != nil {
		t.Fatal(err)
	}
	body := bodyOf(t, h)
	want := map[string]string{
		"temperature": `0.25`, "max_tokens": `512`,
		"tools": `[{"type":"function","function":{"name":"look","description":"Looks.","parameters":{"type":"object"}}}]`,
		"messages": `[{"role":"system","content":"Be brief."},` +
			`{"role":"user","content":[{"type":"text","text":"What is this?"},{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}}]},` +
			`{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"look","arguments":"{}"}}]},` +
			`{"role":"tool","content":"{\"seen\":\"a cat\"}","tool_call_id":"c1"}]`,
	}
	for key, value := range want {
		if string(body[key]) != value {
			t.Errorf("%s =\n%s\nwant\n%s", key, body[key], value)
		}
	}
	got := h.fake.Requests()[0]
	if got.Header.Get("Authorization") != "Bearer key-1" || got.Header.Get("X-Title") != "harnest tests" {
		t.Fatalf("headers = %v", got.Header)
	}
	if got.Messages[1].Text() != "What is this?" || !reflect.DeepEqual(got.ToolNames(), []string{"look"}) {
		t.Fatalf("the fake decoded %+v", got)
	}
}

func TestContentRoundTrip(t *testing.T) {
	for _, raw := range []string{`"hi"`, `[{"type":"text","text":""}]`, `null`} {
		var c chat.Content
		if err := json.Unmarshal([]byte(raw), &c); err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		if want := map[string]string{`null`: `""`}[raw]; want != "" && string(b) != want || want == "" && string(b) != raw {
			t.Errorf("%s came back as %s", raw, b)
		}
	}
	var c chat.Content
	if err := json.Unmarshal([]byte(`42`), &c); err == nil {
		t.Fatal("a number was accepted as content")
	}
}

func TestNewChecksItsOptions(t *testing.T) {
	bad := []chat.Options{
		{BaseURL: "", Model: "m"},
		{BaseURL: "127.0.0.1:11434/v1", Model: "m"},
		{BaseURL: "ftp://example.com/v1", Model: "m"},
		{BaseURL: "http:///v1", Model: "m"},
		{BaseURL: "http://127.0.0.1:11434/v1", Model: ""},
		{BaseURL: "http://127.0.0.1:11434/v1", Model: "m", Timeout: -1},
	}
	for _, o := range bad {
		if _, err := chat.New(o); err == nil {
			t.Errorf("New(%+v) accepted it", o)
		} else if !strings.Contains(err.Error(), "chat: ") {
			t.Errorf("error %q does not say where it comes from", err)
		}
	}
}

func TestProviderNames(t *testing.T) {
	cases := map[string]string{
		"https://api.openai.com/v1":                   "openai",
		"https://openrouter.ai/api/v1":                "openrouter",
		"http://127.0.0.1:11434/v1":                   "ollama",
		"http://localhost:8080/v1":                    "localhost",
		"https://my-res.openai.azure.com/openai/v1":   "azure",
		"https://api.deepseek.com":                    "deepseek",
		"https://inference.example.net:8443/serve/v1": "inference.example.net",
	}
	for baseURL, want := range cases {
		c, err := chat.New(chat.Options{BaseURL: baseURL, Model: "m"})
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Provider(); got != want {
			t.Errorf("provider of %s = %q, want %q", baseURL, got, want)
		}
		if c.Model() != "m" {
			t.Errorf("Model() = %q", c.Model())
		}
	}
}
