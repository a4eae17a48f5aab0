package backend

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/harnest/harnest/backend/chat"
	"github.com/harnest/harnest/runtime"
)

// What the model is sent: the instructions as the system message, the
// session's transcript as history (with the tool calls and results of
// earlier answers, which the runtime keeps in their metadata.tools), then
// the turn's input with its images as data URLs.

// messages are the conversation of a turn's first model call, and its
// token budget (model_compact.go; nil without Turn.Compaction); tools are
// the tools it offers; emit reports the calls of a compaction.
func (m *Model) messages(ctx context.Context, turn *runtime.Turn, tools []chat.Tool, emit runtime.Emit) ([]chat.Message, *turnBudget, error) {
	var out []chat.Message
	if strings.TrimSpace(m.instructions) != "" {
		out = append(out, chat.Message{Role: "system", Content: chat.Content{Text: m.instructions}})
	}
	user, err := inputMessage(ctx, turn)
	if err != nil {
		return nil, nil, err
	}
	var budget *turnBudget
	switch {
	case m.history <= 0:
	case turn.Compaction != nil:
		var history []chat.Message
		history, budget, err = m.compactedHistory(ctx, turn, append(out[:len(out):len(out)], user), tools, emit)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, history...)
	case turn.History != nil:
		history, err := turn.History(ctx, m.history)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, historyMessages(history)...)
	}
	return append(out, user), budget, nil
}

// historyMessages turns transcript messages into chat messages. An answer
// with tools becomes the assistant's tool calls, their results, then its
// text; roles other than user and assistant are left out.
func historyMessages(history []runtime.Message) []chat.Message {
	var out []chat.Message
	for _, msg := range history {
		switch msg.Role {
		case "user":
			out = append(out, chat.Message{Role: "user", Content: transcriptContent(msg.Content)})
		case "assistant":
			out = append(out, toolMessages(msg.Metadata)...)
			if text := transcriptContent(msg.Content); text.Text != "" || text.Parts != nil {
				out = append(out, chat.Message{Role: "assistant", Content: text})
			}
		}
	}
	return out
}

// transcriptContent reads a transcript message's content: a JSON string,
// or parts whose text is kept and whose media (never kept as bytes) is
// named in a placeholder.
func transcriptContent(raw json.RawMessage) chat.Content {
	var text string
	if json.Unmarshal(raw, &text) == nil {
		return chat.Content{Text: text}
	}
	var parts []struct {
		Type      string `json:"type"`
		Text      string `json:"text"`
		MediaType string `json:"mediaType"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return chat.Content{}
	}
	var b strings.Builder
	for _, p := range parts {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		if p.Type == "text" {
			b.WriteString(p.Text)
		} else {
			fmt.Fprintf(&b, "[%s attached earlier (%s); no longer shown]", p.Type, p.MediaType)
		}
	}
	return chat.Content{Text: b.String()}
}

// toolMessages rebuilds an answer's tool calls and their results from its
// transcript metadata: one assistant message with every call that has a
// result, then one tool message per result.
func toolMessages(metadata json.RawMessage) []chat.Message {
	var meta struct {
		Tools []runtime.OutputItem `json:"tools"`
	}
	if len(metadata) == 0 || json.Unmarshal(metadata, &meta) != nil || len(meta.Tools) == 0 {
		return nil
	}
	results := map[string]runtime.OutputItem{}
	for _, item := range meta.Tools {
		if item.Type == "tool_result" {
			results[item.CallID] = item
		}
	}
	call := chat.Message{Role: "assistant"}
	var answers []chat.Message
	for _, item := range meta.Tools {
		result, answered := results[item.ID]
		if item.Type != "tool_call" || !answered {
			continue
		}
		call.ToolCalls = append(call.ToolCalls, chat.ToolCall{ID: item.ID, Type: "function",
			Function: chat.FunctionCall{Name: item.Name, Arguments: argumentsText(item.Arguments)}})
		answers = append(answers, chat.Message{Role: "tool", ToolCallID: item.ID, Content: chat.Content{Text: outputText(result.Output)}})
	}
	if len(call.ToolCalls) == 0 {
		return nil
	}
	return append([]chat.Message{call}, answers...)
}

// argumentsText is a call's arguments as the model wrote them: JSON text,
// "{}" when there were none.
func argumentsText(args json.RawMessage) string {
	if len(bytes.TrimSpace(args)) == 0 {
		return "{}"
	}
	return string(args)
}

// inputMessage is the turn's input as the user's message: its text, data
// parts as their JSON text, and its images as data URLs; other media and
// files by URL are named, not sent.
func inputMessage(ctx context.Context, turn *runtime.Turn) (chat.Message, error) {
	if len(turn.Content) <= 1 && (len(turn.Content) == 0 || turn.Content[0].Type == "text") {
		return chat.Message{Role: "user", Content: chat.Content{Text: turn.Input}}, nil
	}
	parts := make([]chat.Part, 0, len(turn.Content))
	for _, c := range turn.Content {
		switch {
		case c.Type == "text":
			parts = append(parts, chat.Part{Type: "text", Text: c.Text})
		case c.Type == "image" && c.Data != nil:
			data, err := c.Data(ctx)
			if err != nil {
				return chat.Message{}, err
			}
			url := "data:" + c.MediaType + ";base64," + base64.StdEncoding.EncodeToString(data)
			parts = append(parts, chat.Part{Type: "image_url", ImageURL: &chat.ImageURL{URL: url}})
		case c.Type == "data":
			parts = append(parts, chat.Part{Type: "text", Text: string(c.Value)})
		case c.URL != "":
			parts = append(parts, chat.Part{Type: "text",
				Text: fmt.Sprintf("[file at %s (%s); this model is not sent its content]", c.URL, c.MediaType)})
		default:
			parts = append(parts, chat.Part{Type: "text",
				Text: fmt.Sprintf("[%s attached (%s, %d bytes); this model is not sent its content]", c.Type, c.MediaType, c.SizeBytes)})
		}
	}
	return chat.Message{Role: "user", Content: chat.Content{Parts: parts}}, nil
}
