package backend

import (
	"context"
	"encoding/json"
	"errors"
	"sync"

	"github.com/harnest/harnest/backend/chat"
	"github.com/harnest/harnest/internal/toolrun"
	"github.com/harnest/harnest/runtime"
)

// The tool calls of one model step (announced with the model's reply, see
// model_journal.go). Each is decided in order — unknown tools and
// arguments that break the schema are answered with an error at once,
// client tools and calls that need approval suspend the turn one at a time
// (a response waits for one answer at a time), except that the client
// tools of a step are asked together when the transport takes them so
// (model_client_batch.go) — and the calls left are run in parallel. Each result is reported (tool_result) and recorded as a
// resume point as soon as it is known (the decided calls' first, in call
// order, then the run ones' as they end); they are sent back to the model
// in call order. A call an earlier attempt of the turn recorded is not
// decided nor run again. The model is told of every failure, denial or
// expiry and answers accordingly; only a cancelled turn ends the loop.

// turnTools is what the model is offered in one turn: the server's tools
// and the client's own (AG-UI frontend tools), by name.
type turnTools struct {
	specs  []chat.Tool
	client map[string]bool // the client runs these
}

// offeredTools lists the tools of a turn. A client tool named like a
// server tool is left out: the server's is the one the model knows.
func (m *Model) offeredTools(turn *runtime.Turn) turnTools {
	t := turnTools{client: map[string]bool{}}
	known := map[string]bool{}
	for _, tool := range m.tools.Tools() {
		known[tool.Name] = true
		if tool.Kind == "client" {
			t.client[tool.Name] = true
		}
		t.specs = append(t.specs, chatTool(tool.Name, tool.Description, tool.Parameters))
	}
	for _, tool := range m.memoryToolSpecs() { // model_memory.go
		known[tool.Function.Name] = true
		t.specs = append(t.specs, tool)
	}
	if len(turn.ClientTools) == 0 {
		return t
	}
	var fromClient []struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	}
	if err := json.Unmarshal(turn.ClientTools, &fromClient); err != nil {
		m.log.Warn("model backend: the client's tools are not a list of {name, description, parameters}; none offered", "err", err)
		return t
	}
	for _, c := range fromClient {
		if c.Name == "" || known[c.Name] {
			continue
		}
		known[c.Name] = true
		t.client[c.Name] = true
		t.specs = append(t.specs, chatTool(c.Name, c.Description, c.Parameters))
	}
	return t
}

func chatTool(name, description string, parameters json.RawMessage) chat.Tool {
	if len(parameters) == 0 {
		parameters = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return chat.Tool{Type: "function", Function: chat.FunctionDef{Name: name, Description: description, Parameters: parameters}}
}

// toolCall is one call of a step and what became of it.
type toolCall struct {
	chat.ToolCall
	key    string          // its result's journal key
	args   json.RawMessage // the arguments as JSON (a JSON string when the model wrote something else)
	result toolrun.Result
	run    bool   // still to be run by the tool set
	user   string // the turn's user: the memory tools run in their memory
	asked  bool   // a client tool asked with the step's others (model_client_batch.go)
}

// runCalls handles one step's calls and returns the tool messages that
// answer them.
func (m *Model) runCalls(ctx context.Context, turn *runtime.Turn, offered turnTools, step int, calls []chat.ToolCall, emit runtime.Emit) ([]chat.Message, error) {
	batch := make([]*toolCall, len(calls))
	for i, c := range calls {
		batch[i] = &toolCall{ToolCall: c, key: toolKey(step, c.ID), args: argumentsJSON(c.Function.Arguments), user: turn.UserID}
	}
	if err := m.askClientTogether(ctx, turn, offered, batch); err != nil {
		return nil, err
	}
	for _, c := range batch {
		if res, ok := recallResult(turn, c.key); ok {
			c.result = res // an earlier attempt had it
			continue
		}
		if !c.asked { // else answered with the step's other client tool calls
			if err := m.decide(ctx, turn, offered, c); err != nil {
				return nil, err
			}
		}
		if !c.run {
			if err := m.finishCall(ctx, turn, c, emit); err != nil {
				return nil, err
			}
		}
	}
	if err := m.runAll(ctx, turn, batch, emit); err != nil {
		return nil, err
	}
	answers := make([]chat.Message, len(batch))
	for i, c := range batch {
		text := outputText(c.result.Output)
		if c.result.IsError {
			text = "Error: " + text
		}
		answers[i] = chat.Message{Role: "tool", ToolCallID: c.ID, Content: chat.Content{Text: text}}
	}
	return answers, nil
}

// decide answers a call that needs no run (unknown, invalid, client tool)
// or asks for its approval; it leaves c.run set for the calls to run.
func (m *Model) decide(ctx context.Context, turn *runtime.Turn, offered turnTools, c *toolCall) error {
	name := c.Function.Name
	if offered.client[name] {
		return m.askClient(ctx, turn, c)
	}
	if m.isMemoryTool(name) { // model_memory.go: checks its own arguments
		c.run = true
		return nil
	}
	tool, found := m.tools.Find(name)
	if !found {
		// The tool set answers it: no such tool, or its MCP server is
		// down for now.
		c.run = true
		return nil
	}
	if err := m.tools.Validate(name, c.args); err != nil {
		c.result = toolError("The arguments were refused: " + err.Error())
		return nil
	}
	if tool.Approval {
		return m.askApproval(ctx, turn, tool.Parameters, c)
	}
	c.run = true
	return nil
}

// askClient suspends the turn until the client runs its tool.
func (m *Model) askClient(ctx context.Context, turn *runtime.Turn, c *toolCall) error {
	if turn.RequestClientTool == nil {
		return errors.New("model backend: the model called a client tool but the runtime offers no client tools for this turn")
	}
	output, err := turn.RequestClientTool(ctx, runtime.ClientToolRequest{Name: c.Function.Name, Arguments: c.args, CallID: c.ID})
	switch {
	case errors.Is(err, runtime.ErrClientToolFailed):
		c.result = toolError("The client did not run " + c.Function.Name + " (it was cancelled or expired).")
	case err != nil:
		return err
	case len(output) == 0:
		c.result = toolrun.Result{Output: json.RawMessage("null")}
	default:
		c.result = toolrun.Result{Output: output}
	}
	return nil
}

// runAll runs the calls left to run, in parallel, each reported and
// recorded as it ends.
func (m *Model) runAll(ctx context.Context, turn *runtime.Turn, batch []*toolCall, emit runtime.Emit) error {
	var wg sync.WaitGroup
	errs := make([]error, len(batch))
	for i, c := range batch {
		if !c.run {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.result, errs[i] = m.callTool(toolrun.WithCallID(ctx, idempotencyKey(turn, c.key)), c)
			if errs[i] == nil {
				errs[i] = m.finishCall(ctx, turn, c, emit)
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// toolError is a failed call's result: a sentence for the model.
func toolError(sentence string) toolrun.Result {
	b, _ := json.Marshal(sentence)
	return toolrun.Result{Output: b, IsError: true}
}

// argumentsJSON is the arguments a model wrote, as JSON: as written when
// they are JSON, else as a JSON string (Validate then refuses them).
func argumentsJSON(text string) json.RawMessage {
	if text == "" {
		return json.RawMessage("{}")
	}
	if json.Valid([]byte(text)) {
		return json.RawMessage(text)
	}
	b, _ := json.Marshal(text)
	return b
}
