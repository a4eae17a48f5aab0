package runtime

import (
	"context"
	"encoding/json"

	"github.com/harnest/harnest/internal/jsonwrite"
)

// The transcript messages a completed response appends, and reading the
// session's history for an agent.

// transcriptMessages are the user turn and the assistant answer appended to
// the transcript when a response completes, made at now (the final step's
// time).
func (r *Response) transcriptMessages(env Envelope, now string) [][]byte {
	if steers := r.steerMarks(); len(steers) > 0 {
		return r.steeredTranscript(env, now, steers)
	}
	b := make([]byte, 0, 320+len(r.turn.Input)+len(env.OutputText))
	b = r.appendMessage(b, "user", transcriptContent(r.turn), "", now)
	user := b[:len(b):len(b)]
	answer := r.appendMessage(b[len(b):], "assistant", nil, env.OutputText, now, toolActivity(env.Output)...)
	return [][]byte{user, answer}
}

// toolActivity is the tool calls and results of an answer, as its
// transcript message keeps them (metadata.tools), so that a model agent
// sees earlier tool results in its history. Nil when there are none.
func toolActivity(output []OutputItem) []OutputItem {
	var tools []OutputItem
	for _, item := range output {
		if item.Type == "tool_call" || item.Type == "tool_result" {
			tools = append(tools, item)
		}
	}
	return tools
}

// appendMessage appends one transcript message of the response (a Message
// as JSON) whose content is content, or text as a JSON string when content
// is nil; tools, when any, go into its metadata.
func (r *Response) appendMessage(b []byte, role string, content json.RawMessage, text, now string, tools ...OutputItem) []byte {
	o := jsonwrite.Begin(b)
	o.Key("id")
	o.B = appendMessageID(o.B)
	o.Str("role", role)
	o.Key("content")
	if content == nil {
		o.B = jsonwrite.AppendString(o.B, text)
	} else {
		o.B = append(o.B, content...) // compact JSON, written by this package
	}
	o.Str("createdAt", now)
	o.Key("metadata")
	m := jsonwrite.Begin(o.B)
	m.Str("responseId", r.ID)
	if len(tools) > 0 {
		if encoded, err := json.Marshal(tools); err == nil {
			m.Key("tools")
			m.B = append(m.B, encoded...)
		}
	}
	o.B = m.End()
	return o.End()
}

// transcriptContent is the user turn as the transcript keeps it: the text,
// or, for an input with media, the parts with media as placeholders (never
// the bytes).
func transcriptContent(t Turn) json.RawMessage {
	if len(t.Content) == 1 && t.Content[0].Type == "text" {
		return jsonString(t.Input)
	}
	parts := make([]map[string]string, len(t.Content))
	for i, c := range t.Content {
		if c.Type == "text" {
			parts[i] = map[string]string{"type": "text", "text": c.Text}
		} else {
			parts[i] = map[string]string{"type": c.Type, "mediaType": c.MediaType, "content": "attached"}
		}
	}
	b, _ := json.Marshal(parts)
	return b
}

func jsonString(s string) json.RawMessage { return jsonwrite.AppendString(nil, s) }

// history reads the transcript tail for an agent, without its compaction
// items (Turn.Compaction reads those).
func (s *Service) history(ctx context.Context, user, session string, limit int) ([]Message, error) {
	rows, err := s.store.LastMessages(ctx, user, session, limit)
	if err != nil {
		return nil, err
	}
	out := make([]Message, 0, len(rows))
	for _, row := range rows {
		var m Message
		if err := json.Unmarshal(row.JSON, &m); err == nil && m.Type != MessageTypeCompaction {
			out = append(out, m)
		}
	}
	return out, nil
}
