package openaiapi

import (
	"net/http"
	"strings"
	"time"

	"github.com/harnest/harnest/runtime"
)

// completion is a non-streamed answer: object "chat.completion".
type completion struct {
	ID      string   `json:"id"`
	Object  string   `json:"object"`
	Created int64    `json:"created"`
	Model   string   `json:"model"`
	Choices []choice `json:"choices"`
	Usage   *usage   `json:"usage,omitempty"`
}

// choice is the one choice of a completion.
type choice struct {
	Index        int            `json:"index"`
	Message      messageContent `json:"message"`
	FinishReason string         `json:"finish_reason"`
}

// messageContent is the assistant's message of a completion.
type messageContent struct {
	Role    string `json:"role"`
	Content string `json:"content"`
	// ReasoningContent is the thinking the output policy shows.
	ReasoningContent string `json:"reasoning_content,omitempty"`
}

// usage is token usage in OpenAI's names.
type usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

func usageOf(u *runtime.Usage) *usage {
	if u == nil {
		return nil
	}
	return &usage{PromptTokens: u.InputTokens, CompletionTokens: u.OutputTokens, TotalTokens: u.TotalTokens}
}

// completionID names a completion after its response.
func completionID(responseID string) string { return "chatcmpl-" + responseID }

// chatCompletions answers POST /v1/chat/completions: one turn of the
// session the Harnest-Session-Id header names (or a new one), as JSON or
// as a stream of chunks.
func (d *door) chatCompletions(w http.ResponseWriter, r *http.Request, p runtime.Principal) {
	req, ok := d.readRequest(w, r)
	if !ok {
		return
	}
	resp, err := d.svc.StartResponse(r.Context(), p, runtime.ResponseRequest{
		Input: req.Input, SessionID: r.Header.Get(SessionHeader), Stream: req.Stream,
		Transport: runtime.TransportOpenAI,
	})
	if err != nil {
		writeError(w, err)
		return
	}
	w.Header().Set(SessionHeader, resp.SessionID)
	w.Header().Set(responseHeader, resp.ID)
	created := time.Now().Unix()
	if req.Stream {
		d.stream(w, resp, created, req.IncludeUsage)
		return
	}
	out := resp.Outcome()
	if out.Err != nil {
		writeError(w, out.Err)
		return
	}
	content, err := answerText(out.Envelope)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, completion{
		ID: completionID(resp.ID), Object: "chat.completion", Created: created, Model: d.model,
		Choices: []choice{{Message: messageContent{Role: "assistant", Content: content, ReasoningContent: thinkingOf(out.Envelope)},
			FinishReason: "stop"}},
		Usage: usageOf(out.Envelope.Usage),
	})
}

// answerText is the content of a completion: the answer, or for a
// response that waits for an approval or a client tool, what is needed and
// how to give it.
func answerText(env runtime.Envelope) (string, error) {
	switch {
	case env.Status == runtime.StatusCompleted:
		return env.OutputText, nil
	case env.Status == runtime.StatusRequiresAction && env.RequiredAction != nil:
		text := actionText(env.RequiredAction, env.SessionID)
		if env.OutputText != "" {
			text = env.OutputText + "\n\n" + text
		}
		return text, nil
	}
	return "", runtime.Errorf(runtime.ErrAgentFailed, "unexpected_status", "The response ended as %s without an answer", env.Status)
}

// thinkingOf is the thinking of an answer, as the output policy lets it
// through (the runtime drops hidden thinking before it reaches the output).
func thinkingOf(env runtime.Envelope) string {
	var b strings.Builder
	for _, item := range env.Output {
		if item.Type != "thinking" {
			continue
		}
		for _, part := range item.Content {
			b.WriteString(part.Text)
		}
	}
	return b.String()
}
