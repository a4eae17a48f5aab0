package config

// Defaults and ranges of spec.backend.model.context.
const (
	DefaultModelKeepRecent = 10
	minModelContextTokens  = 256
	maxModelContextTokens  = 10_000_000
)

// ModelContext bounds the prompt of a model agent in tokens: when a
// session outgrows MaxTokens (or holds more messages than historyMessages),
// its older messages are summarised into a compaction item that later
// turns send instead of them. Tokens are estimated (about 4 characters a
// token), corrected by the prompt tokens the endpoint reports.
type ModelContext struct {
	// MaxTokens is the most tokens a prompt may hold (required): the
	// instructions, the summary, the history, the input and the tools.
	MaxTokens int `yaml:"maxTokens"`
	// SummaryModel is the model, on the same endpoint, that writes the
	// summaries (default: the agent's model).
	SummaryModel string `yaml:"summaryModel"`
	// KeepRecent is how many of the newest messages a compaction keeps as
	// they are (default 10, fewer when they do not fit).
	KeepRecent int `yaml:"keepRecent"`
}

// modelContext checks spec.backend.model.context.
func (v *validator) modelContext(m *ModelBackend) {
	const at = "spec.backend.model.context"
	c := m.Context
	if c == nil {
		return
	}
	if c.MaxTokens < minModelContextTokens || c.MaxTokens > maxModelContextTokens {
		v.problem(at+".maxTokens", "required, between %d and %d: the most tokens a prompt may hold", minModelContextTokens, maxModelContextTokens)
	}
	if c.KeepRecent < 0 || c.KeepRecent > maxModelHistoryMessages {
		v.problem(at+".keepRecent", "must be between 1 and %d (0 means %d)", maxModelHistoryMessages, DefaultModelKeepRecent)
	}
}

func (c *ModelContext) applyDefaults() {
	if c != nil && c.KeepRecent == 0 {
		c.KeepRecent = DefaultModelKeepRecent
	}
}
