package backend

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"

	"github.com/harnest/harnest/backend/chat"
	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/contract"
	"github.com/harnest/harnest/internal/toolrun"
	"github.com/harnest/harnest/runtime"
)

// Model is the model backend: an agent loop over one Chat Completions
// endpoint. Each step asks the model with the instructions, the history,
// the turn's input and the tool results so far; text and reasoning stream
// out as they arrive; tool calls are run (approved first when they need
// it, in parallel when the model asks for several) and answered, until
// the model answers without calling a tool or the steps run out. Each
// completed step is a resume point of the turn (model_journal.go).
type Model struct {
	client       *chat.Client
	tools        *toolrun.Set
	instructions string
	maxSteps     int
	history      int
	log          *slog.Logger
	output       *contract.Schema // spec.outputSchema (model_output.go); nil: text
	context      *modelContext    // spec.backend.model.context (model_compact.go); nil: no token budget
	plainOutput  atomic.Bool      // the endpoint rejected response_format (model_output.go)
}

// errMaxSteps: the model kept calling tools for every step it was allowed.
func errMaxSteps(n int) error {
	return runtime.Errorf(runtime.ErrAgentUnavailable, "model_max_steps",
		"The model was still calling tools after %d steps; raise spec.backend.model.maxSteps or ask for less at once", n)
}

// NewModel builds the model backend of a loaded folder's spec. It starts
// the spec's MCP servers (a server that does not answer yet makes the
// agent not ready, not the start fail); Close stops them.
func NewModel(ctx context.Context, spec config.Spec, instructions, folderDir string, logger *slog.Logger) (*Model, error) {
	m := spec.Backend.Model
	if m == nil {
		return nil, errors.New("model backend: spec.backend.model is not set")
	}
	client, err := chat.New(chat.Options{
		BaseURL: m.BaseURL, Model: m.Model, APIKey: m.APIKey, Headers: m.Headers,
		Temperature: m.Temperature, MaxOutputTokens: m.MaxOutputTokens,
		Timeout: m.Timeout(), Logger: logger,
	})
	if err != nil {
		return nil, fmt.Errorf("model backend: %w", err)
	}
	set, err := toolrun.Open(ctx, toolrun.Options{
		Tools: spec.Tools, MCPServers: spec.MCPServers, ClientTools: spec.ClientTools,
		FolderDir: folderDir, Logger: logger,
	})
	if err != nil {
		return nil, fmt.Errorf("model backend: %w", err)
	}
	c, err := spec.Contract()
	if err != nil {
		set.Close()
		return nil, fmt.Errorf("model backend: %w", err)
	}
	budget, err := newModelContext(m, client, logger)
	if err != nil {
		set.Close()
		return nil, fmt.Errorf("model backend: %w", err)
	}
	return &Model{client: client, tools: set, instructions: instructions,
		maxSteps: max(m.MaxSteps, 1), history: m.HistoryMessages, log: logger, output: c.OutputSchema(), context: budget}, nil
}

// Ready reports whether every MCP server answers.
func (m *Model) Ready(ctx context.Context) error { return m.tools.Ready(ctx) }

// Close stops the MCP servers.
func (m *Model) Close() error { return m.tools.Close() }

// Run runs one turn: the tool loop.
func (m *Model) Run(ctx context.Context, turn *runtime.Turn, emit runtime.Emit) error {
	offered := m.offeredTools(turn)
	messages, budget, err := m.messages(ctx, turn, offered.specs, emit)
	if err != nil {
		return err
	}
	handlers := chat.Handlers{
		Text: func(delta string) error {
			return emit(runtime.Event{Type: runtime.EventTextDelta, Delta: delta})
		},
		Reasoning: func(delta string) error {
			return emit(runtime.Event{Type: runtime.EventThinkingDelta, Delta: delta})
		},
	}
	output := newModelOutput(m.output, m.plainOutput.Load()) // model_output.go
	if output != nil {
		handlers.Text = func(string) error { return nil } // the checked answer is emitted at the end
	}
	for step := 0; step < m.maxSteps; step++ {
		if messages, err = m.steered(ctx, turn, step, messages); err != nil { // model_steer.go
			return err
		}
		res, err := m.reply(ctx, turn, step, chat.Request{Messages: messages, Tools: offered.specs, ResponseFormat: output.responseFormat()}, handlers, emit)
		if err != nil && output.formatRejected(err) {
			m.plainOutput.Store(true)
			m.log.Warn("model backend: the endpoint rejected response_format; asking for the output schema's JSON without it", "responseId", turn.ResponseID)
			res, err = m.reply(ctx, turn, step, chat.Request{Messages: messages, Tools: offered.specs}, handlers, emit)
		}
		if err != nil {
			return err
		}
		if step == 0 {
			budget.observe(ctx, m, turn, res) // model_compact_budget.go
		}
		if len(res.ToolCalls) == 0 && output != nil {
			if again := output.repair(res.Text, step+1 == m.maxSteps); again != nil {
				messages = append(messages, again...)
				continue
			}
			return emitAnswer(res.Text, emit)
		}
		if len(res.ToolCalls) == 0 {
			if step+1 == m.maxSteps || !steersAfter(turn, step+1) {
				return nil
			}
			if err := keepAnswer(ctx, turn, step, res); err != nil {
				return err
			}
			messages = append(messages, chat.Message{Role: "assistant", Content: chat.Content{Text: res.Text}})
			continue
		}
		messages = append(messages, chat.Message{Role: "assistant", Content: chat.Content{Text: res.Text}, ToolCalls: res.ToolCalls})
		results, err := m.runCalls(ctx, turn, offered, step, res.ToolCalls, emit)
		if err != nil {
			return err
		}
		messages = append(messages, results...)
	}
	return errMaxSteps(m.maxSteps)
}

// metadataEvent reports one model call: exact usage, model, provider and
// why it stopped.
func metadataEvent(res *chat.Result) runtime.Event {
	e := runtime.Event{Type: runtime.EventAgentMetadata, Framework: "harnest",
		Model: res.Model, Provider: res.Provider, FinishReason: res.FinishReason, Raw: res.Raw}
	if u := res.Usage; u != nil {
		e.Usage = &runtime.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, TotalTokens: u.TotalTokens}
	}
	return e
}
