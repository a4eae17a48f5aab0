package fakemodel

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

// Reply is what the fake answers to one request.
type Reply struct {
	// Status 0 (or 200) streams the reply; any other status is an error
	// reply whose body is Body (a JSON error object when Body is empty).
	Status int
	// Header is set on the response, e.g. {"Retry-After": "2"}; it may
	// override Content-Type.
	Header map[string]string
	Body   string

	// Text is streamed as several content deltas (split after spaces).
	Text string
	// Reasoning is streamed as reasoning deltas before the text, in the
	// field ReasoningField names: "reasoning_content" (the default) or
	// "reasoning".
	Reasoning      string
	ReasoningField string
	// ToolCalls are streamed in fragments: the ID, type and name first,
	// then the arguments in two halves.
	ToolCalls []ToolCall
	// Usage, when set, is sent on a final chunk with empty choices.
	Usage *Usage
	// FinishReason defaults to "stop", or "tool_calls" when there are
	// ToolCalls.
	FinishReason string
	// Model is the model reported in every chunk (default: the requested
	// one, or "fake-model").
	Model string

	// ChunkDelay is waited between chunks; FirstByteDelay before anything
	// is written (headers included).
	ChunkDelay     time.Duration
	FirstByteDelay time.Duration
	// CutAfter, when above 0, breaks the connection after that many chunks
	// of a streamed reply (a stream that breaks off midway).
	CutAfter int

	// Raw, when set, is written as the whole body, as is, with Content-Type
	// text/event-stream (malformed or hand-made streams).
	Raw string
	// JSON answers with one non-streamed chat.completion object (also
	// what a request with stream false gets).
	JSON bool
}

// Usage is the token counts a reply reports; total_tokens is their sum.
type Usage struct {
	PromptTokens, CompletionTokens int
}

// wireUsage is Usage on the wire.
type wireUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

func (u *Usage) wire() *wireUsage {
	if u == nil {
		return nil
	}
	return &wireUsage{u.PromptTokens, u.CompletionTokens, u.PromptTokens + u.CompletionTokens}
}

// wireToolCall is a complete tool call on the wire (JSON replies).
type wireToolCall struct {
	ID       string `json:"id,omitempty"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// finishReason is the reply's finish reason with its default.
func (rep Reply) finishReason() string {
	switch {
	case rep.FinishReason != "":
		return rep.FinishReason
	case len(rep.ToolCalls) > 0:
		return "tool_calls"
	}
	return "stop"
}

// model is the model the reply reports for req.
func (rep Reply) model(req Request) string {
	switch {
	case rep.Model != "":
		return rep.Model
	case req.Model != "":
		return req.Model
	}
	return "fake-model"
}

// answer writes rep as the response to req.
func (s *Server) answer(w http.ResponseWriter, r *http.Request, req Request, rep Reply) {
	if !s.wait(r, rep.FirstByteDelay) {
		return
	}
	for name, value := range rep.Header {
		w.Header().Set(name, value)
	}
	switch {
	case rep.Status != 0 && rep.Status != http.StatusOK:
		body := rep.Body
		if body == "" {
			body = errorBody(http.StatusText(rep.Status))
		}
		setDefault(w.Header(), "Content-Type", "application/json")
		w.WriteHeader(rep.Status)
		_, _ = w.Write([]byte(body))
	case rep.Raw != "":
		setDefault(w.Header(), "Content-Type", "text/event-stream")
		_, _ = w.Write([]byte(rep.Raw))
	case rep.JSON || !req.Stream:
		setDefault(w.Header(), "Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(completion(req, rep))
	default:
		s.stream(w, r, req, rep)
	}
}

// completion is rep as one non-streamed chat.completion object.
func completion(req Request, rep Reply) map[string]any {
	message := map[string]any{"role": "assistant", "content": nil}
	if rep.Text != "" {
		message["content"] = rep.Text
	}
	if rep.Reasoning != "" {
		message[rep.reasoningField()] = rep.Reasoning
	}
	if len(rep.ToolCalls) > 0 {
		var calls []wireToolCall
		for _, c := range rep.ToolCalls {
			wc := wireToolCall{ID: c.ID, Type: "function"}
			wc.Function.Name, wc.Function.Arguments = c.Name, c.Arguments
			calls = append(calls, wc)
		}
		message["tool_calls"] = calls
	}
	out := map[string]any{
		"id": "chatcmpl-fake", "object": "chat.completion", "created": time.Now().Unix(),
		"model":   rep.model(req),
		"choices": []any{map[string]any{"index": 0, "message": message, "finish_reason": rep.finishReason()}},
	}
	if u := rep.Usage.wire(); u != nil {
		out["usage"] = u
	}
	return out
}

func (rep Reply) reasoningField() string {
	if rep.ReasoningField != "" {
		return rep.ReasoningField
	}
	return "reasoning_content"
}

// wait waits d, or less when the client goes away or the test ends; it
// reports whether the handler should go on.
func (s *Server) wait(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-r.Context().Done():
	case <-s.closing:
	}
	return false
}

func setDefault(h http.Header, name, value string) {
	if h.Get(name) == "" {
		h.Set(name, value)
	}
}

// errorBody is an OpenAI-style error object.
func errorBody(message string) string {
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": message, "type": "fake_error"}})
	return string(b)
}

func writeError(w http.ResponseWriter, status int, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(errorBody(message)))
}

// splitWords splits s after each space, so the pieces join back to s.
func splitWords(s string) []string {
	var out []string
	for _, piece := range strings.SplitAfter(s, " ") {
		if piece != "" {
			out = append(out, piece)
		}
	}
	return out
}
