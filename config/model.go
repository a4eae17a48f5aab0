package config

import (
	"encoding/json"
	"time"
)

// Defaults of the model backend.
const (
	DefaultModelTimeoutSeconds  = 120
	DefaultModelMaxSteps        = 8
	DefaultModelHistoryMessages = 40
	DefaultToolTimeoutSeconds   = 60
	DefaultA2ATimeoutSeconds    = 120
)

// ModelBackend is one OpenAI-compatible Chat Completions endpoint
// (POST {BaseURL}/chat/completions) driven in a tool loop: the model
// answers, or asks for tools that harnest runs before it asks again.
type ModelBackend struct {
	BaseURL string `yaml:"baseUrl"` // required, an http(s) URL such as http://127.0.0.1:11434/v1
	Model   string `yaml:"model"`   // required
	// APIKey is sent as Authorization: Bearer; never logged or printed.
	APIKey string `yaml:"apiKey"`
	// Headers are extra request headers (values may be ${ENV}); never
	// logged or printed.
	Headers map[string]string `yaml:"headers"`
	// Temperature and MaxOutputTokens are sent only when set.
	Temperature     *float64 `yaml:"temperature"`
	MaxOutputTokens *int     `yaml:"maxOutputTokens"`
	// TimeoutSeconds bounds one model call, its retries included
	// (default 120).
	TimeoutSeconds float64 `yaml:"timeoutSeconds"`
	// MaxSteps bounds the model calls of one turn (the tool loop; default 8).
	MaxSteps int `yaml:"maxSteps"`
	// HistoryMessages is how many transcript messages are sent as history,
	// the newest kept (default 40, at most 1000).
	HistoryMessages int `yaml:"historyMessages"`
	// Context keeps each prompt within a token budget by compacting long
	// sessions (model_context.go); nil: no budget.
	Context *ModelContext `yaml:"context"`
}

// Tool is a server tool the model may call: a local program run with the
// call's arguments as JSON on stdin, whose stdout is the result.
type Tool struct {
	Name        string `yaml:"name"`        // ^[A-Za-z0-9_-]{1,64}$, unique across tools, MCP tools and client tools
	Description string `yaml:"description"` // what the tool does, for the model
	// Parameters is the JSON Schema of the arguments (an object schema);
	// arguments that do not match go back to the model as a tool error.
	Parameters JSONValue `yaml:"parameters"`
	Exec       *ToolExec `yaml:"exec"` // required
	// Approval suspends the turn for a human's approval before each call.
	Approval bool `yaml:"approval"`
}

// ToolExec is how a server tool runs: argv (never a shell), in the agent
// folder or Dir, with the same minimal environment as workers.
type ToolExec struct {
	Command        []string          `yaml:"command"` // relative paths resolve against the agent folder
	Dir            string            `yaml:"dir"`
	Env            map[string]string `yaml:"env"`
	TimeoutSeconds int               `yaml:"timeoutSeconds"` // default 60
}

// MCPServer is an MCP server whose tools the model may call, exposed as
// <name>__<tool>. Exactly one of Command (stdio) and URL (Streamable HTTP)
// is set.
type MCPServer struct {
	Name    string            `yaml:"name"` // ^[A-Za-z0-9_-]{1,32}$ without "__", unique
	Command string            `yaml:"command"`
	Args    []string          `yaml:"args"`
	Env     map[string]string `yaml:"env"` // added to the minimal environment; never logged
	URL     string            `yaml:"url"`
	Headers map[string]string `yaml:"headers"` // sent on every HTTP request; never logged
	// Approval is true (every tool of the server needs a human's approval)
	// or a list of the server's tool names that do.
	Approval ToolApproval `yaml:"approval"`
	// TimeoutSeconds bounds one tool call (default 60).
	TimeoutSeconds int `yaml:"timeoutSeconds"`
}

// ToolApproval is `true`, `false` or a list of tool names.
type ToolApproval struct {
	All   bool
	Tools []string
}

// Needs reports whether the tool (its name on the server) needs approval.
func (a ToolApproval) Needs(tool string) bool {
	if a.All {
		return true
	}
	for _, t := range a.Tools {
		if t == tool {
			return true
		}
	}
	return false
}

// ClientTool is a tool the client runs (a browser, an app): when the model
// calls it, the turn suspends with requires_action client_tool until the
// client posts the output.
type ClientTool struct {
	Name        string    `yaml:"name"`
	Description string    `yaml:"description"`
	Parameters  JSONValue `yaml:"parameters"`
}

// JSONValue is any YAML value kept as JSON (a JSON Schema, say); nil when
// the field is absent.
type JSONValue json.RawMessage

// Timeout is how long one model call may take, retries included.
func (m ModelBackend) Timeout() time.Duration {
	return time.Duration(m.TimeoutSeconds * float64(time.Second))
}

// Timeout is how long one call of the tool may take.
func (e ToolExec) Timeout() time.Duration { return time.Duration(e.TimeoutSeconds) * time.Second }

// Timeout is how long one call of the server's tools may take.
func (m MCPServer) Timeout() time.Duration { return time.Duration(m.TimeoutSeconds) * time.Second }

// Timeout bounds one turn's exchange with the remote agent.
func (a A2ABackend) Timeout() time.Duration {
	return time.Duration(a.TimeoutSeconds * float64(time.Second))
}
