package config

import (
	"bytes"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Names the model sees: Chat Completions allows [A-Za-z0-9_-]{1,64} for
// function names. "__" is kept for MCP tools (<server>__<tool>), so no
// server tool or client tool can collide with one.
var (
	toolNamePattern      = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)
	mcpServerNamePattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,32}$`)
)

// Ranges of the model backend.
const (
	maxModelSteps           = 100
	maxModelHistoryMessages = 1000
	maxModelTimeoutSeconds  = 3600
	maxToolTimeoutSeconds   = 3600
)

// model checks spec.backend.model.
func (v *validator) model(m *ModelBackend) {
	const at = "spec.backend.model"
	v.endpoint(endpointURL{key: at + ".baseUrl", value: m.BaseURL,
		required: "the endpoint's base URL, such as http://127.0.0.1:11434/v1 (Ollama) or https://api.openai.com/v1",
		example:  "http://127.0.0.1:11434/v1", credential: "put the key in apiKey", appends: "/chat/completions"})
	if strings.TrimSpace(m.Model) == "" {
		v.problem(at+".model", "required; name the model, such as qwen3:8b or gpt-4.1-mini")
	}
	for name := range m.Headers {
		if !httpHeaderName(name) {
			v.problem(joinPath(at+".headers", name), "not a valid HTTP header name")
		}
		if strings.EqualFold(name, "Authorization") && m.APIKey != "" {
			v.problem(joinPath(at+".headers", name), "set either apiKey or an Authorization header, not both")
		}
	}
	if t := m.Temperature; t != nil && (*t < 0 || *t > 2) {
		v.problem(at+".temperature", "must be between 0 and 2")
	}
	if n := m.MaxOutputTokens; n != nil && *n < 1 {
		v.problem(at+".maxOutputTokens", "must be 1 or more")
	}
	if m.TimeoutSeconds < 0 || m.TimeoutSeconds > maxModelTimeoutSeconds {
		v.problem(at+".timeoutSeconds", "must be between 1 and %d (0 means %d)", maxModelTimeoutSeconds, DefaultModelTimeoutSeconds)
	}
	if m.MaxSteps < 0 || m.MaxSteps > maxModelSteps {
		v.problem(at+".maxSteps", "must be between 1 and %d (0 means %d)", maxModelSteps, DefaultModelMaxSteps)
	}
	if m.HistoryMessages < 0 || m.HistoryMessages > maxModelHistoryMessages {
		v.problem(at+".historyMessages", "must be between 1 and %d (0 means %d)", maxModelHistoryMessages, DefaultModelHistoryMessages)
	}
	v.modelContext(m)
}

// tools checks spec.tools, spec.mcpServers and spec.clientTools: only a
// model backend calls tools, and every name the model sees is unique.
func (v *validator) tools(s Spec) {
	if s.Backend.Model == nil && !s.Relay.ToolsAtHome { // tools at home: outside agents call them
		for _, f := range []struct {
			path string
			n    int
		}{{"spec.tools", len(s.Tools)}, {"spec.mcpServers", len(s.MCPServers)}, {"spec.clientTools", len(s.ClientTools)}} {
			if f.n > 0 {
				v.problem(f.path, "only the model backend calls tools; remove it or set spec.backend.model")
			}
		}
		return
	}
	seen := map[string]string{} // tool name → where it was declared
	name := func(path, n string) {
		switch {
		case n == "":
			v.problem(path, "required; give the tool a name the model will call it by")
		case !toolNamePattern.MatchString(n) || strings.Contains(n, "__"):
			v.problem(path, "must be 1 to 64 letters, digits, '_' or '-' without \"__\" (kept for MCP tools), got %q", shorten(n))
		case seen[n] != "":
			v.problem(path, "duplicate tool name %q (also %s); tool names must be unique", n, seen[n])
		default:
			seen[n] = path
		}
	}
	for i, t := range s.Tools {
		at := indexPath("spec.tools", i)
		name(at+".name", t.Name)
		v.schema(at+".parameters", t.Parameters)
		switch e := t.Exec; {
		case e == nil:
			v.problem(at+".exec", `required; give the program to run, such as exec: {command: ["./tools/lookup.sh"]}`)
		case len(e.Command) == 0 || e.Command[0] == "":
			v.problem(at+".exec.command", `required; give the program and its arguments as a list, such as ["./tools/lookup.sh"]`)
		default:
			if e.TimeoutSeconds < 0 || e.TimeoutSeconds > maxToolTimeoutSeconds {
				v.problem(at+".exec.timeoutSeconds", "must be between 1 and %d (0 means %d)", maxToolTimeoutSeconds, DefaultToolTimeoutSeconds)
			}
			v.envNames(at+".exec.env", e.Env)
		}
	}
	for i, t := range s.ClientTools {
		at := indexPath("spec.clientTools", i)
		name(at+".name", t.Name)
		v.schema(at+".parameters", t.Parameters)
	}
	servers := map[string]bool{}
	for i, m := range s.MCPServers {
		v.mcpServer(indexPath("spec.mcpServers", i), m, servers)
	}
}

func (v *validator) mcpServer(at string, m MCPServer, seen map[string]bool) {
	switch {
	case m.Name == "":
		v.problem(at+".name", "required; its tools are offered to the model as <name>__<tool>")
	case !mcpServerNamePattern.MatchString(m.Name) || strings.Contains(m.Name, "__"):
		v.problem(at+".name", "must be 1 to 32 letters, digits, '_' or '-' without \"__\", got %q", shorten(m.Name))
	case seen[m.Name]:
		v.problem(at+".name", "duplicate MCP server name %q; names must be unique", m.Name)
	default:
		seen[m.Name] = true
	}
	switch {
	case m.Command == "" && m.URL == "":
		v.problem(at, "set command (a program speaking MCP on stdio) or url (a Streamable HTTP endpoint)")
	case m.Command != "" && m.URL != "":
		v.problem(at, "set either command or url, not both")
	case m.URL != "":
		if u, err := url.Parse(m.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			v.problem(at+".url", "must be an absolute http or https URL such as http://127.0.0.1:8931/mcp")
		}
		if len(m.Args) > 0 || len(m.Env) > 0 {
			v.problem(at, "args and env are for a command; an url server takes headers")
		}
	default:
		if len(m.Headers) > 0 {
			v.problem(at+".headers", "headers are for an url server; a command takes env")
		}
	}
	v.envNames(at+".env", m.Env)
	for name := range m.Headers {
		if !httpHeaderName(name) {
			v.problem(joinPath(at+".headers", name), "not a valid HTTP header name")
		}
	}
	for j, t := range m.Approval.Tools {
		if t == "" {
			v.problem(indexPath(at+".approval", j), "must name a tool of the server")
		}
	}
	if m.TimeoutSeconds < 0 || m.TimeoutSeconds > maxToolTimeoutSeconds {
		v.problem(at+".timeoutSeconds", "must be between 1 and %d (0 means %d)", maxToolTimeoutSeconds, DefaultToolTimeoutSeconds)
	}
}

// schema checks that a tool's parameters are a JSON Schema for an object
// (the model's arguments are always an object).
func (v *validator) schema(path string, raw JSONValue) {
	if raw == nil {
		return // no parameters: an object with none
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		v.problem(path, "is not valid JSON: %v", err)
		return
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		v.problem(path, "must be a JSON Schema object, such as {type: object, properties: {city: {type: string}}}")
		return
	}
	if t, has := obj["type"]; has && t != "object" {
		v.problem(path, "must describe an object (type: object): a tool's arguments are always an object")
		return
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("parameters.json", doc); err != nil {
		v.problem(path, "is not a valid JSON Schema: %v", err)
		return
	}
	if _, err := c.Compile("parameters.json"); err != nil {
		v.problem(path, "is not a valid JSON Schema: %s", schemaError(err))
	}
}

// schemaError is the compiler's message without the resource name.
func schemaError(err error) string {
	return strings.ReplaceAll(fmt.Sprint(err), "parameters.json", "the schema")
}

// envNames checks the names of an environment map.
func (v *validator) envNames(path string, env map[string]string) {
	for name := range env {
		if !envNamePattern.MatchString(name) {
			v.problem(joinPath(path, name), "not a valid environment variable name; use letters, digits and '_', not starting with a digit")
		}
	}
}

// httpHeaderName reports a valid header field name (an RFC 9110 token).
func httpHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c > 127 || !(c == '!' || c == '#' || c == '$' || c == '%' || c == '&' || c == '\'' || c == '*' || c == '+' ||
			c == '-' || c == '.' || c == '^' || c == '_' || c == '`' || c == '|' || c == '~' ||
			('0' <= c && c <= '9') || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')) {
			return false
		}
	}
	return true
}

// a2aBackend checks spec.backend.a2a.
func (v *validator) a2aBackend(a *A2ABackend) {
	const at = "spec.backend.a2a"
	v.endpoint(endpointURL{key: at + ".url", value: a.URL, required: "the remote agent's address, such as https://agents.example.com/",
		example: "https://agents.example.com/", credential: "put a bearer token in token"})
	if a.TimeoutSeconds < 0 || a.TimeoutSeconds > maxModelTimeoutSeconds {
		v.problem(at+".timeoutSeconds", "must be between 1 and %d (0 means %d)", maxModelTimeoutSeconds, DefaultA2ATimeoutSeconds)
	}
	for i, h := range a.AllowHosts {
		if h == "" || strings.ContainsAny(h, "/ ") {
			v.problem(indexPath(at+".allowHosts", i), "must be a host or host:port, such as 127.0.0.1:9999 or agents.internal")
		}
	}
}
