package fakemodel

import (
	"encoding/json"
	"net/http"
	"time"
)

// streamWriter writes one reply as chat.completion.chunk events.
type streamWriter struct {
	s       *Server
	w       http.ResponseWriter
	r       *http.Request
	flusher http.Flusher
	model   string
	created int64
	// chunkDelay is waited between chunks.
	chunkDelay time.Duration
	// cutAfter is the number of chunks after which the connection breaks
	// (0: never).
	cutAfter int
	// wrote counts the chunks written, to wait ChunkDelay between them.
	wrote int
}

// stream writes rep as a Server-Sent Events stream: a first chunk with the
// role, reasoning deltas, text deltas, tool call fragments, a chunk with
// the finish reason, a usage chunk when there is usage, then [DONE].
func (s *Server) stream(w http.ResponseWriter, r *http.Request, req Request, rep Reply) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	sw := &streamWriter{s: s, w: w, r: r, flusher: flusher, model: rep.model(req),
		created: time.Now().Unix(), chunkDelay: rep.ChunkDelay, cutAfter: rep.CutAfter}

	if !sw.delta(map[string]any{"role": "assistant"}) {
		return
	}
	for _, piece := range splitWords(rep.Reasoning) {
		if !sw.delta(map[string]any{rep.reasoningField(): piece}) {
			return
		}
	}
	for _, piece := range splitWords(rep.Text) {
		if !sw.delta(map[string]any{"content": piece}) {
			return
		}
	}
	for i, call := range rep.ToolCalls {
		for _, fragment := range toolCallFragments(i, call) {
			if !sw.delta(map[string]any{"tool_calls": []any{fragment}}) {
				return
			}
		}
	}
	finish := rep.finishReason()
	if !sw.chunk([]any{map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": finish}}, nil) {
		return
	}
	if u := rep.Usage.wire(); u != nil && !sw.chunk([]any{}, u) {
		return
	}
	sw.write([]byte("data: [DONE]\n\n"))
}

// toolCallFragments splits one call the way providers stream it: the ID,
// type and name with empty arguments, then the arguments in two halves.
func toolCallFragments(index int, call ToolCall) []map[string]any {
	first := map[string]any{"index": index, "type": "function", "function": map[string]any{"name": call.Name, "arguments": ""}}
	if call.ID != "" {
		first["id"] = call.ID
	}
	half := len(call.Arguments) / 2
	return []map[string]any{
		first,
		{"index": index, "function": map[string]any{"arguments": call.Arguments[:half]}},
		{"index": index, "function": map[string]any{"arguments": call.Arguments[half:]}},
	}
}

// delta writes a chunk whose only choice carries delta.
func (sw *streamWriter) delta(delta map[string]any) bool {
	return sw.chunk([]any{map[string]any{"index": 0, "delta": delta, "finish_reason": nil}}, nil)
}

// chunk writes one chat.completion.chunk event, after ChunkDelay when it
// is not the first; it reports whether the stream goes on.
func (sw *streamWriter) chunk(choices []any, usage *wireUsage) bool {
	if sw.wrote > 0 && !sw.s.wait(sw.r, sw.chunkDelay) {
		return false
	}
	if sw.cutAfter > 0 && sw.wrote == sw.cutAfter {
		panic(http.ErrAbortHandler) // net/http closes the connection mid-response
	}
	sw.wrote++
	body := map[string]any{
		"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": sw.created,
		"model": sw.model, "choices": choices,
	}
	if usage != nil {
		body["usage"] = usage
	}
	b, err := json.Marshal(body)
	if err != nil {
		panic(err) // the fake's own maps always encode
	}
	return sw.write(append(append([]byte("data: "), b...), '\n', '\n'))
}

// write writes b and flushes it; it reports whether the client is still
// there.
func (sw *streamWriter) write(b []byte) bool {
	if _, err := sw.w.Write(b); err != nil {
		return false
	}
	if sw.flusher != nil {
		sw.flusher.Flush()
	}
	return sw.r.Context().Err() == nil
}
