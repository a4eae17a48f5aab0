package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/harnest/harnest/internal/jsonpost"
)

// Judge scores an answer against a rubric: a number from 0 (fails the
// rubric entirely) to 1 (meets it fully), and its reason.
type Judge interface {
	Score(ctx context.Context, q JudgeQuestion) (score float64, reason string, err error)
}

// JudgeQuestion is what the judge sees: the rubric, the conversation
// before the turn, the turn's input and its answer.
type JudgeQuestion struct {
	Rubric  string
	History []Exchange
	Input   string
	Answer  string
}

// Exchange is one earlier turn of the conversation.
type Exchange struct{ Input, Answer string }

// ChatJudge is a judge model behind an OpenAI-compatible Chat Completions
// endpoint, asked once per rubric, not streamed, at temperature 0.
type ChatJudge struct {
	Endpoint JudgeEndpoint
	// Client defaults to one bounded by Endpoint.TimeoutSeconds (60 s).
	Client *http.Client
}

var _ Judge = (*ChatJudge)(nil)

// maxJudgeReplyBytes bounds the judge's reply.
const maxJudgeReplyBytes = 1 << 20

// judgeInstructions is the judge's system prompt.
const judgeInstructions = `You grade one answer of an AI agent against a rubric.
Read the rubric, the conversation and the answer. Reply with one JSON object and nothing else:
{"score": <a number from 0 to 1: 0 fails the rubric entirely, 1 meets it fully>, "reason": "<one sentence>"}`

// Score asks the judge model.
func (j *ChatJudge) Score(ctx context.Context, q JudgeQuestion) (float64, string, error) {
	body, err := json.Marshal(map[string]any{
		"model": j.Endpoint.Model, "stream": false, "temperature": 0,
		"messages": []map[string]string{
			{"role": "system", "content": judgeInstructions},
			{"role": "user", "content": q.prompt()},
		},
	})
	if err != nil {
		return 0, "", err
	}
	url := strings.TrimSuffix(j.Endpoint.BaseURL, "/") + "/chat/completions"
	ans, err := jsonpost.Post(ctx, j.client(), url, j.Endpoint.APIKey, body, maxJudgeReplyBytes)
	switch {
	case err == nil:
	case jsonpost.StepOf(err) == jsonpost.Send:
		return 0, "", fmt.Errorf("judge: the model endpoint did not answer: %v", err)
	case jsonpost.StepOf(err) == jsonpost.Read:
		return 0, "", fmt.Errorf("judge: reading the reply: %v", err)
	default:
		return 0, "", fmt.Errorf("judge: %v", err)
	}
	data := ans.Body
	if ans.StatusCode != http.StatusOK {
		return 0, "", fmt.Errorf("judge: the model endpoint answered %s: %s", ans.Status, shorten(string(data), 200))
	}
	var completion struct {
		Choices []struct {
			Message struct {
				Content string `json:"content"`
			} `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(data, &completion); err != nil || len(completion.Choices) == 0 {
		return 0, "", fmt.Errorf("judge: the reply is not a chat completion with a choice: %s", shorten(string(data), 200))
	}
	return parseVerdict(completion.Choices[0].Message.Content)
}

func (j *ChatJudge) client() *http.Client {
	if j.Client != nil {
		return j.Client
	}
	timeout := 60 * time.Second
	if j.Endpoint.TimeoutSeconds > 0 {
		timeout = time.Duration(j.Endpoint.TimeoutSeconds * float64(time.Second))
	}
	return &http.Client{Timeout: timeout}
}

// prompt is the judge's user message.
func (q JudgeQuestion) prompt() string {
	var b strings.Builder
	b.WriteString("Rubric:\n" + q.Rubric + "\n\nConversation:\n")
	for _, e := range q.History {
		b.WriteString("User: " + e.Input + "\nAgent: " + e.Answer + "\n")
	}
	b.WriteString("User: " + q.Input + "\n\nThe answer to grade:\n" + q.Answer + "\n")
	return b.String()
}

// thinkBlock is a reasoning model's <think>…</think> preamble.
var thinkBlock = regexp.MustCompile(`(?s)<think>.*?</think>`)

// parseVerdict reads {"score": n, "reason": "…"} out of the judge's text
// (a fenced block or words around the object are tolerated).
func parseVerdict(text string) (float64, string, error) {
	t := thinkBlock.ReplaceAllString(text, "")
	start, end := strings.Index(t, "{"), strings.LastIndex(t, "}")
	if start < 0 || end < start {
		return 0, "", fmt.Errorf("judge: the reply holds no JSON object: %q", shorten(text, 200))
	}
	var v struct {
		Score  *float64 `json:"score"`
		Reason string   `json:"reason"`
	}
	if err := json.Unmarshal([]byte(t[start:end+1]), &v); err != nil {
		return 0, "", fmt.Errorf("judge: the reply's object does not read as {\"score\", \"reason\"}: %v", err)
	}
	if v.Score == nil {
		return 0, "", errors.New("judge: the reply has no score")
	}
	if *v.Score < 0 || *v.Score > 1 {
		return 0, "", fmt.Errorf("judge: the score %v is not between 0 and 1", *v.Score)
	}
	return *v.Score, v.Reason, nil
}
