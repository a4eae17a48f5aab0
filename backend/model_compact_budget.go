package backend

import (
	"context"
	"encoding/json"
	"math"

	"github.com/harnest/harnest/backend/chat"
	"github.com/harnest/harnest/runtime"
)

// Token counting for the prompt budget (model_compact.go): an estimate of
// about four characters a token and a few tokens a message, multiplied by
// the session's ratio of the prompt tokens the endpoint reported to the
// estimate of the prompt it was sent, which each turn's first model call
// corrects and keeps (runtime.Compaction.SaveRatio).

const (
	charsPerToken   = 4
	tokensAMessage  = 4
	minTokenRatio   = 0.2
	maxTokenRatio   = 5.0
	ratioChangeKept = 0.02 // a ratio that moved less is not written again
)

// estimateText is the estimated tokens of a text.
func estimateText(s string) int { return (len(s) + charsPerToken - 1) / charsPerToken }

// estimateMessages is the estimated tokens of chat messages.
func estimateMessages(msgs []chat.Message) int {
	n := 0
	for _, m := range msgs {
		n += tokensAMessage + estimateText(m.Content.Text)
		for _, p := range m.Content.Parts {
			n += estimateText(p.Text)
			if p.ImageURL != nil {
				n += 85 // a low-detail image, as the endpoints that count them do; its data URL is not text
			}
		}
		for _, c := range m.ToolCalls {
			n += tokensAMessage + estimateText(c.Function.Name) + estimateText(c.Function.Arguments)
		}
	}
	return n
}

// estimateTools is the estimated tokens of the tools offered.
func estimateTools(tools []chat.Tool) int {
	if len(tools) == 0 {
		return 0
	}
	b, _ := json.Marshal(tools)
	return estimateText(string(b))
}

// turnBudget is one turn's prompt budget.
type turnBudget struct {
	max      int     // the budget in tokens (0: none)
	ratio    float64 // reported tokens per estimated token (0: not measured)
	estimate int     // the estimate of the first model call's prompt
	comp     *runtime.Compaction
	// emit reports the summariser's calls of a turn (their usage counts
	// in the response's); nil on demand.
	emit runtime.Emit
}

// tokens is an estimate corrected by the ratio.
func (b *turnBudget) tokens(estimate int) int {
	if b == nil || b.ratio <= 0 {
		return estimate
	}
	return int(math.Ceil(float64(estimate) * b.ratio))
}

// observe corrects the ratio with the prompt tokens the endpoint reported
// for the turn's first call, and keeps it for the session when it moved.
func (b *turnBudget) observe(ctx context.Context, m *Model, turn *runtime.Turn, res *chat.Result) {
	if b == nil || b.comp == nil || b.estimate <= 0 || res == nil || res.Usage == nil || res.Usage.InputTokens <= 0 {
		return
	}
	measured := min(max(float64(res.Usage.InputTokens)/float64(b.estimate), minTokenRatio), maxTokenRatio)
	next := measured
	if b.ratio > 0 {
		next = (b.ratio + measured) / 2
	}
	if b.ratio > 0 && math.Abs(next-b.ratio)/b.ratio < ratioChangeKept {
		return
	}
	b.ratio = next
	if err := b.comp.SaveRatio(ctx, next); err != nil {
		m.log.Warn("model backend: the session's token ratio was not kept", "responseId", turn.ResponseID, "err", err)
	}
}
