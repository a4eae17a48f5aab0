package backend

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/harnest/harnest/backend/chat"
	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/runtime"
)

// Compaction (runtime/compact.go): the model backend builds each prompt
// from the instructions, the session's newest summary (its compaction
// item, sent as a system message), the messages after the summary's range
// (at most historyMessages), and the input. With spec.backend.model.context
// set, a prompt that would outgrow maxTokens (95% of it, for the estimate's error), or messages after the range
// that are more than historyMessages, make the turn compact first: the
// messages but the keepRecent newest (fewer when those do not fit) are
// summarised, with the summary before them, by the agent's model or the
// summaryModel, in chunks that each fit the budget, and the new item is
// saved before the prompt is sent. POST /sessions/{id}/compact does the
// same on demand (CompactSession). The tool loop's later calls of a turn
// add the turn's tool calls and results to that prompt.

const (
	// maxSummarized bounds the messages one compaction reads: a session
	// that grew long before compaction was configured has its older ones
	// dropped, as without compaction.
	maxSummarized = 1000
	// keptShare is the share of the budget a compacted prompt may use, so
	// that a few turns pass before the next compaction.
	keptShare = 0.75
	// triggerShare is the share of the budget past which a prompt is
	// compacted: headroom for the estimate's error.
	triggerShare = 0.95
)

// modelContext is spec.backend.model.context, with the client of the
// model that summarises.
type modelContext struct {
	maxTokens, keepRecent int
	summarizer            *chat.Client
}

// newModelContext builds the budget of a model backend (nil: none).
func newModelContext(m *config.ModelBackend, agent *chat.Client, logger *slog.Logger) (*modelContext, error) {
	c := m.Context
	if c == nil {
		return nil, nil
	}
	out := &modelContext{maxTokens: c.MaxTokens, keepRecent: max(c.KeepRecent, 1), summarizer: agent}
	if c.SummaryModel != "" && c.SummaryModel != m.Model {
		client, err := chat.New(chat.Options{
			BaseURL: m.BaseURL, Model: c.SummaryModel, APIKey: m.APIKey, Headers: m.Headers,
			Timeout: m.Timeout(), Logger: logger,
		})
		if err != nil {
			return nil, fmt.Errorf("summary model: %w", err)
		}
		out.summarizer = client
	}
	return out, nil
}

// summaryTokens is the most a summary may hold: a fifth of the budget.
func (c *modelContext) summaryTokens() int { return max(c.maxTokens/5, 64) }

// compactedHistory is the history part of a turn's first prompt (the
// summary and the messages after it), compacted first when the budget
// asks for it; fixed are the prompt's other messages, tools its tools.
func (m *Model) compactedHistory(ctx context.Context, turn *runtime.Turn, fixed []chat.Message, tools []chat.Tool, emit runtime.Emit) ([]chat.Message, *turnBudget, error) {
	h, err := turn.Compaction.History(ctx, m.history)
	if err != nil {
		return nil, nil, err
	}
	b := &turnBudget{ratio: h.Ratio, comp: turn.Compaction, emit: emit}
	fixedTokens := estimateMessages(fixed) + estimateTools(tools)
	history := compactedMessages(h.Summary, h.Messages)
	b.estimate = fixedTokens + estimateMessages(history)
	if m.context == nil {
		return history, b, nil
	}
	b.max = m.context.maxTokens
	reason := ""
	switch {
	case h.Older:
		reason = "messages"
	case b.tokens(b.estimate) > int(float64(b.max)*triggerShare):
		reason = "budget"
	default:
		return history, b, nil
	}
	item, err := m.compact(ctx, turn.Compaction, b, h, fixedTokens, m.context.keepRecent, reason, turn.ResponseID)
	if err != nil {
		return nil, nil, err
	}
	if item == nil {
		return history, b, nil
	}
	kept := h.Messages
	for len(kept) > 0 && kept[0].Index <= item.Replaces.ToIndex {
		kept = kept[1:]
	}
	history = compactedMessages(item, kept)
	b.estimate = fixedTokens + estimateMessages(history)
	return history, b, nil
}

// compactedMessages are a summary (as a system message) and the messages
// after it as chat messages.
func compactedMessages(summary *runtime.CompactionItem, msgs []runtime.HistoryMessage) []chat.Message {
	var out []chat.Message
	if summary != nil {
		out = append(out, summaryMessage(summary.Content))
	}
	plain := make([]runtime.Message, len(msgs))
	for i, msg := range msgs {
		plain[i] = msg.Message
	}
	return append(out, historyMessages(plain)...)
}

func summaryMessage(summary string) chat.Message {
	return chat.Message{Role: chat.RoleSystem, Content: chat.Text("Summary of the earlier conversation:\n" + summary)}
}

// compact summarises the messages after the summary's range but the
// newest ones kept (at most keepRecent, within the budget's kept share
// beside fixedTokens and a summary) and saves the item. Nil: nothing to
// summarise.
func (m *Model) compact(ctx context.Context, comp *runtime.Compaction, b *turnBudget, h runtime.CompactedHistory, fixedTokens, keepRecent int, reason, responseID string) (*runtime.CompactionItem, error) {
	room := int(float64(b.max)*keptShare) - b.tokens(fixedTokens) - m.context.summaryTokens()
	keep := 0
	for used := 0; keep < min(keepRecent, len(h.Messages)); keep++ {
		msg := h.Messages[len(h.Messages)-1-keep]
		used += b.tokens(estimateMessages(historyMessages([]runtime.Message{msg.Message})))
		if used > room {
			break
		}
	}
	older := h.Messages[:len(h.Messages)-keep]
	if h.Older {
		after := int64(-1)
		if h.Summary != nil {
			after = h.Summary.Replaces.ToIndex
		}
		end := int64(-1)
		if len(h.Messages) > 0 {
			end = h.Messages[0].Index - 1
		}
		unread, err := comp.Between(ctx, after+1, end, maxSummarized-len(older))
		if err != nil {
			return nil, err
		}
		older = append(unread, older...)
	}
	if len(older) == 0 {
		if reason == "request" {
			return nil, nil
		}
		m.log.Warn("model backend: the prompt is over its token budget and nothing is left to summarise", "responseId", responseID)
		return nil, nil
	}
	prev := ""
	if h.Summary != nil {
		prev = h.Summary.Content
	}
	text, err := m.summarize(ctx, b, prev, older)
	if err != nil {
		return nil, err
	}
	item, err := comp.Save(ctx, runtime.Summary{Text: text, First: older[0], Last: older[len(older)-1],
		Summarized: len(older), Reason: reason, Model: m.context.summarizer.Model()})
	if err != nil {
		m.log.Warn("model backend: the compaction was not saved; this turn uses it all the same", "responseId", responseID, "err", err)
		if ctx.Err() != nil || responseID == "" {
			return nil, err
		}
		return &runtime.CompactionItem{Content: text, Replaces: runtime.CompactionRange{ToIndex: older[len(older)-1].Index}}, nil
	}
	return item, nil
}

// summarizePrompt is the summariser's instructions.
const summarizePrompt = `You compact a conversation for an AI assistant that will continue it without seeing the messages you summarise. ` +
	`Write one summary of the summary so far (if any) and the new messages: keep facts, names, numbers, decisions, ` +
	`the user's goals and preferences, tool results that matter, and open tasks; leave out small talk. ` +
	`Write at most %d words. Answer with the summary only.`

// summarize folds msgs into the summary prev, in chunks whose prompts each
// fit the budget.
func (m *Model) summarize(ctx context.Context, b *turnBudget, prev string, msgs []runtime.HistoryMessage) (string, error) {
	limit := m.context.summaryTokens()
	system := fmt.Sprintf(summarizePrompt, limit*3/4)
	overhead := b.tokens(estimateText(system) + 3*tokensAMessage + estimateText("Summary so far:\n\nNew messages:\n"))
	chunkRoom := int(float64(b.max)*triggerShare) - overhead - b.tokens(limit) // beside the summary so far
	if chunkRoom < 16 {
		chunkRoom = 16
	}
	var chunk []string
	used := 0
	flush := func() error {
		if len(chunk) == 0 {
			return nil
		}
		summary, err := m.summarizeChunk(ctx, b, system, prev, strings.Join(chunk, "\n"), limit)
		if err != nil {
			return err
		}
		prev, chunk, used = summary, chunk[:0], 0
		return nil
	}
	for _, msg := range msgs {
		line := transcriptLine(msg.Message)
		if n := b.tokens(estimateText(line) + 1); n > chunkRoom {
			line = clip(line, int(float64(chunkRoom)/max(b.ratio, 1)*charsPerToken)-charsPerToken)
		}
		n := b.tokens(estimateText(line) + 1)
		if used+n > chunkRoom {
			if err := flush(); err != nil {
				return "", err
			}
		}
		chunk, used = append(chunk, line), used+n
	}
	if err := flush(); err != nil {
		return "", err
	}
	return prev, nil
}

// summarizeChunk asks the summariser for the summary of prev and lines,
// clipped to limit tokens; a turn's call is reported (agent_metadata).
func (m *Model) summarizeChunk(ctx context.Context, b *turnBudget, system, prev, lines string, limit int) (string, error) {
	var user strings.Builder
	user.WriteString("Summary so far:\n")
	if prev == "" {
		prev = "(none)"
	}
	user.WriteString(prev)
	user.WriteString("\n\nNew messages:\n")
	user.WriteString(lines)
	none := func(string) error { return nil }
	res, err := m.context.summarizer.Complete(ctx, chat.Request{Messages: []chat.Message{
		{Role: chat.RoleSystem, Content: chat.Text(system)},
		{Role: chat.RoleUser, Content: chat.Text(user.String())},
	}}, chat.Handlers{Text: none, Reasoning: none})
	if err != nil {
		return "", err
	}
	if b.emit != nil {
		if err := b.emit(metadataEvent(res)); err != nil {
			return "", err
		}
	}
	text := strings.TrimSpace(res.Text)
	if text == "" {
		return "", runtime.Errorf(runtime.ErrAgentUnavailable, "compaction_failed", "The model wrote an empty summary of the session's older messages")
	}
	return clip(text, limit*charsPerToken), nil
}

// transcriptLine is a transcript message as one line of the text to
// summarise: its role, its tool calls and results, its text.
func transcriptLine(msg runtime.Message) string {
	var b strings.Builder
	for _, cm := range historyMessages([]runtime.Message{msg}) {
		if b.Len() > 0 {
			b.WriteString(" ")
		}
		b.WriteString(cm.Role)
		b.WriteString(": ")
		for _, c := range cm.ToolCalls {
			fmt.Fprintf(&b, "[called %s %s] ", c.Function.Name, c.Function.Arguments)
		}
		b.WriteString(cm.Content.Text)
	}
	return strings.ReplaceAll(b.String(), "\n", " ")
}

// clip cuts s to at most n bytes, at a rune boundary.
func clip(s string, n int) string {
	if n < 0 {
		n = 0
	}
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// CompactSession compacts a session now (POST /sessions/{id}/compact):
// every message after the newest summary but the keepRecent newest (< 0:
// spec.backend.model.context.keepRecent, or its default) is summarised.
func (m *Model) CompactSession(ctx context.Context, comp *runtime.Compaction, keepRecent int) (*runtime.CompactionItem, error) {
	if keepRecent < 0 {
		keepRecent = config.DefaultModelKeepRecent
		if m.context != nil {
			keepRecent = m.context.keepRecent
		}
	}
	h, err := comp.History(ctx, max(m.history, keepRecent))
	if err != nil {
		return nil, err
	}
	if m.context == nil { // no budget of its own: summarise with the agent's model, in chunks of the default size
		m = m.withContext(&modelContext{maxTokens: defaultCompactTokens, keepRecent: keepRecent, summarizer: m.client})
	}
	b := &turnBudget{max: m.context.maxTokens, ratio: h.Ratio, comp: comp}
	fixed := []chat.Message{{Role: chat.RoleSystem, Content: chat.Text(m.instructions)}}
	return m.compact(ctx, comp, b, h, estimateMessages(fixed), keepRecent, "request", "")
}

// defaultCompactTokens is the budget of an on-demand compaction for an
// agent without spec.backend.model.context: the size of its chunks.
const defaultCompactTokens = 8000

// withContext is a copy of m with the budget c (for one call).
func (m *Model) withContext(c *modelContext) *Model {
	copied := &Model{client: m.client, tools: m.tools, instructions: m.instructions, maxSteps: m.maxSteps,
		history: m.history, log: m.log, output: m.output, context: c}
	return copied
}

var _ runtime.SessionCompacter = (*Model)(nil)
