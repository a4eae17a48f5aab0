package chat

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// maxEventBytes bounds one line, and one event's data, of a stream.
const maxEventBytes = 4 << 20

// wireMessage is what a chunk's delta and a completion's message carry:
// text, reasoning under either provider's name, and tool calls.
type wireMessage struct {
	Content          json.RawMessage `json:"content"`
	ReasoningContent json.RawMessage `json:"reasoning_content"`
	Reasoning        json.RawMessage `json:"reasoning"`
	ToolCalls        []wireToolCall  `json:"tool_calls"`
}

// wireChunk is one chat.completion.chunk event.
type wireChunk struct {
	wireAnswer
	Choices []struct {
		Delta        wireMessage `json:"delta"`
		FinishReason string      `json:"finish_reason"`
	} `json:"choices"`
}

// ioError is a failure to read the stream, classified by the caller (a
// timeout, a cancellation or a connection that broke).
type ioError struct{ err error }

func (e *ioError) Error() string { return e.err.Error() }
func (e *ioError) Unwrap() error { return e.err }

// sseReader reads the data of Server-Sent Events: data lines are joined
// until a blank line ends the event; comments and other fields are
// skipped.
type sseReader struct {
	scanner *bufio.Scanner
	data    []byte
	hasData bool
}

func newSSEReader(body io.Reader) *sseReader {
	scanner := bufio.NewScanner(body)
	scanner.Buffer(make([]byte, 0, 64<<10), maxEventBytes)
	return &sseReader{scanner: scanner}
}

// next returns the next event's data; io.EOF when the stream ended.
func (r *sseReader) next() ([]byte, error) {
	for r.scanner.Scan() {
		line := bytes.TrimSuffix(r.scanner.Bytes(), []byte("\r"))
		if len(line) == 0 {
			if r.hasData {
				return r.take(), nil
			}
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		if string(field) != "data" { // a comment (empty field), event:, id:, retry:
			continue
		}
		value = bytes.TrimPrefix(value, []byte(" "))
		if r.hasData {
			r.data = append(r.data, '\n')
		}
		r.data, r.hasData = append(r.data, value...), true
		if len(r.data) > maxEventBytes {
			return nil, bufio.ErrTooLong
		}
	}
	if err := r.scanner.Err(); err != nil {
		return nil, err
	}
	if r.hasData { // the last event, without its blank line
		return r.take(), nil
	}
	return nil, io.EOF
}

func (r *sseReader) take() []byte {
	data := r.data
	r.data, r.hasData = nil, false
	return data
}

// readStream reads an event stream into a. It returns nil at [DONE], or
// at the end of a stream that sent a finish reason.
func (c *Client) readStream(body io.Reader, a *assembly) error {
	events := newSSEReader(body)
	for {
		data, err := events.next()
		switch {
		case errors.Is(err, io.EOF):
			if a.finish == "" {
				return truncatedStreamError()
			}
			return nil
		case errors.Is(err, bufio.ErrTooLong):
			c.warn("the model endpoint sent a stream event larger than 4 MiB")
			return malformedError()
		case err != nil:
			return &ioError{err}
		}
		if string(bytes.TrimSpace(data)) == "[DONE]" {
			return nil
		}
		if err := c.applyChunk(data, a); err != nil {
			return err
		}
	}
}

// applyChunk decodes one chunk and hands its deltas on.
func (c *Client) applyChunk(data []byte, a *assembly) error {
	var chunk wireChunk
	if err := c.decodeAnswer(data, &chunk, "chunk", "the model endpoint reported an error in its stream"); err != nil {
		return err
	}
	if chunk.Model != "" && a.model == "" {
		a.model = chunk.Model
	}
	a.setUsage(chunk.Usage)
	if len(chunk.Choices) == 0 {
		return nil
	}
	choice := chunk.Choices[0]
	if ok, err := a.addMessage(choice.Delta); err != nil {
		return err
	} else if !ok {
		c.warn("the model endpoint sent a delta whose content is neither text nor parts", "chunk", c.redactor.bounded(data, false))
		return malformedError()
	}
	if choice.FinishReason != "" {
		a.finish = choice.FinishReason
	}
	return nil
}

// addMessage hands a delta's (or a whole message's) reasoning and text to
// the handlers and gathers its tool calls. ok is false, and nothing is
// added, when its content is neither text nor parts.
func (a *assembly) addMessage(m wireMessage) (ok bool, err error) {
	content, ok := contentText(m.Content)
	if !ok {
		return false, nil
	}
	if err := a.addReasoning(reasoningText(m.ReasoningContent, m.Reasoning)); err != nil {
		return true, err
	}
	if err := a.addText(content); err != nil {
		return true, err
	}
	for _, call := range m.ToolCalls {
		a.addToolCall(call)
	}
	return true, nil
}

// isPresent reports whether a JSON field was sent and is not null.
func isPresent(raw json.RawMessage) bool {
	return len(raw) > 0 && string(raw) != "null"
}

// contentText is a content field as text: a string, or the text of an
// array of parts; ok is false for other shapes.
func contentText(raw json.RawMessage) (text string, ok bool) {
	if !isPresent(raw) {
		return "", true
	}
	if json.Unmarshal(raw, &text) == nil {
		return text, true
	}
	var parts []Part
	if json.Unmarshal(raw, &parts) != nil {
		return "", false
	}
	var b bytes.Buffer
	for _, p := range parts {
		if p.Type == PartText {
			b.WriteString(p.Text)
		}
	}
	return b.String(), true
}

// reasoningText is a delta's reasoning: reasoning_content (DeepSeek,
// older vLLM) or reasoning (OpenRouter, newer vLLM), whichever is a
// non-empty string, the first when both are.
func reasoningText(fields ...json.RawMessage) string {
	for _, raw := range fields {
		var s string
		if isPresent(raw) && json.Unmarshal(raw, &s) == nil && s != "" {
			return s
		}
	}
	return ""
}
