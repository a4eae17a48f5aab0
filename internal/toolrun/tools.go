package toolrun

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/harnest/harnest/config"
)

// DefaultStartWait is how long Open waits for MCP servers to connect when
// Options.StartWait is zero.
const DefaultStartWait = 10 * time.Second

// The kinds of tools.
const (
	KindExec   = "exec"   // a server tool: a local program
	KindMCP    = "mcp"    // a tool of an MCP server
	KindClient = "client" // a tool the client runs; the loop suspends the turn for it
)

// Options is what Open builds a Set from.
type Options struct {
	Tools       []config.Tool
	MCPServers  []config.MCPServer
	ClientTools []config.ClientTool
	// FolderDir is the agent folder: exec tools and stdio MCP servers run
	// here, and relative commands resolve here.
	FolderDir string
	// Logger receives what goes wrong (nil: nothing is logged).
	Logger *slog.Logger
	// StartWait is how long Open waits for MCP servers to connect at first
	// (default DefaultStartWait). It also bounds each connection attempt.
	StartWait time.Duration
}

// Tool is one tool as the model sees it.
type Tool struct {
	// Name is what the model calls it: the configured name, or for an MCP
	// tool "<server>__<tool>" with characters outside [A-Za-z0-9_-]
	// replaced by "_", cut to 64.
	Name        string
	Description string
	// Parameters is a JSON Schema object; {"type":"object","properties":{}}
	// when none was given.
	Parameters json.RawMessage
	// Approval is true when a human approves each call first.
	Approval bool
	// Kind is KindExec, KindMCP or KindClient.
	Kind string
	// Server is the MCP server's name (KindMCP only).
	Server string
}

// Result is what a call produced: Output is a JSON value (what the model
// and the tool_result event get); IsError says the call failed, and then
// Output is a JSON string the model can act on.
type Result struct {
	Output  json.RawMessage
	IsError bool
}

// Set is the tools of one agent. Its methods may be called from many
// goroutines at once.
type Set struct {
	folder    string
	logger    *slog.Logger
	execs     []*entry // in config order
	clients   []*entry // in config order
	servers   []*mcpServer
	catalog   atomic.Pointer[catalog]
	rebuildMu sync.Mutex
	closeOnce sync.Once
}

// Open builds the set of tools and starts connecting to every MCP server
// at once, waiting up to o.StartWait for them (servers that are not
// connected by then keep trying in the background). It fails only for
// what can never work: the parameters of an exec or client tool that are
// not a JSON Schema that compiles, or ctx done while waiting.
func Open(ctx context.Context, o Options) (*Set, error) {
	logger := o.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	startWait := o.StartWait
	if startWait <= 0 {
		startWait = DefaultStartWait
	}
	folder, err := filepath.Abs(o.FolderDir)
	if err != nil {
		return nil, fmt.Errorf("tools: agent folder %q: %w", o.FolderDir, err)
	}
	s := &Set{folder: folder, logger: logger}

	for _, t := range o.Tools {
		e, err := newEntry(t.Name, t.Description, t.Parameters, KindExec)
		if err != nil {
			return nil, err
		}
		e.tool.Approval = t.Approval
		e.exec = t.Exec
		s.execs = append(s.execs, e)
	}
	for _, t := range o.ClientTools {
		e, err := newEntry(t.Name, t.Description, t.Parameters, KindClient)
		if err != nil {
			return nil, err
		}
		s.clients = append(s.clients, e)
	}
	s.rebuild()

	for _, cfg := range o.MCPServers {
		s.servers = append(s.servers, newMCPServer(cfg, folder, logger, startWait, s.rebuild))
	}
	for _, m := range s.servers {
		go m.run()
	}
	if err := s.waitForServers(ctx, startWait); err != nil {
		_ = s.Close()
		return nil, err
	}
	return s, nil
}

// newEntry compiles the parameters of an exec or client tool.
func newEntry(name, description string, params config.JSONValue, kind string) (*entry, error) {
	raw := json.RawMessage(params)
	if len(raw) == 0 {
		raw = emptyObjectSchema
	}
	schema, err := CompileSchema(raw)
	if err != nil {
		return nil, fmt.Errorf("tools: tool %s: parameters: %w", name, err)
	}
	return &entry{
		tool:   Tool{Name: name, Description: description, Parameters: raw, Kind: kind},
		schema: schema,
	}, nil
}

// waitForServers waits until every MCP server ended its first connection
// attempt, for at most wait; only ctx being done is an error.
func (s *Set) waitForServers(ctx context.Context, wait time.Duration) error {
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for _, m := range s.servers {
		select {
		case <-m.firstAttempt:
		case <-timer.C:
			return nil
		case <-ctx.Done():
			return fmt.Errorf("tools: waiting for MCP servers: %w", ctx.Err())
		}
	}
	return nil
}

// Tools is the current list: exec tools (config order), MCP tools (server
// order, then the server's order), client tools. MCP tools come and go
// with their servers.
func (s *Set) Tools() []Tool {
	return slices.Clone(s.catalog.Load().list)
}

// Find returns the tool the model calls name.
func (s *Set) Find(name string) (Tool, bool) {
	e, ok := s.catalog.Load().byName[name]
	if !ok {
		return Tool{}, false
	}
	return e.tool, true
}

// Validate checks the arguments of a call of the tool: nil, or an error
// whose text is a sentence for the model (no such tool, not JSON, not an
// object, or where the arguments break the tool's schema).
func (s *Set) Validate(name string, args json.RawMessage) error {
	c := s.catalog.Load()
	e, ok := c.byName[name]
	if !ok {
		if m, down := c.unavailable[name]; down {
			return errors.New(m.unavailableSentence(name))
		}
		return unknownToolError(name)
	}
	return e.schema.Validate(args)
}

// Call runs the tool with the arguments (validated first). It returns an
// error only when ctx is done (errors.Is(err, ctx.Err())); everything else
// that goes wrong is a Result with IsError.
func (s *Set) Call(ctx context.Context, name string, args json.RawMessage) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{}, fmt.Errorf("tool %s: %w", name, err)
	}
	c := s.catalog.Load()
	e, ok := c.byName[name]
	if !ok {
		if m, down := c.unavailable[name]; down {
			return errorResult(m.unavailableSentence(name)), nil
		}
		return errorResult(unknownToolError(name).Error()), nil
	}
	if err := e.schema.Validate(args); err != nil {
		return errorResult(err.Error()), nil
	}
	switch e.tool.Kind {
	case KindExec:
		return s.runExec(ctx, e, args)
	case KindMCP:
		return e.server.call(ctx, e, args)
	default:
		return errorResult(fmt.Sprintf("the tool %s runs on the client, not on the server", name)), nil
	}
}

// Ready is nil when every MCP server is connected and answers a ping; else
// an error naming each server that is not, and why.
func (s *Set) Ready(ctx context.Context) error {
	return readyAll(ctx, s.servers)
}

// Close stops every MCP session and server process and waits for them.
// It may be called more than once.
func (s *Set) Close() error {
	s.closeOnce.Do(func() {
		for _, m := range s.servers {
			m.stop()
		}
		for _, m := range s.servers {
			m.wait()
		}
	})
	return nil
}

// unknownToolError is the sentence for a call of a tool that is not (or
// no longer) offered.
func unknownToolError(name string) error {
	return fmt.Errorf("there is no tool named %q; call one of the tools offered", name)
}

// callTimeout is how long one call of a tool may take: its configured
// timeout, or config.DefaultToolTimeoutSeconds without one.
func callTimeout(configured time.Duration) time.Duration {
	if configured <= 0 {
		return config.DefaultToolTimeoutSeconds * time.Second
	}
	return configured
}

// callArgs is what a call sends as arguments: the model's, or {} when it
// sent none.
func callArgs(args json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(args)) == 0 {
		return json.RawMessage("{}")
	}
	return args
}

// errorResult is a failed call whose Output is the sentence as a JSON
// string.
func errorResult(sentence string) Result {
	out, _ := json.Marshal(sentence)
	return Result{Output: out, IsError: true}
}
