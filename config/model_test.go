package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const modelConfig = `apiVersion: harnest.dev/v1alpha1
kind: Agent
metadata:
  name: my-agent
spec:
  backend:
    model:
      baseUrl: http://127.0.0.1:11434/v1
      model: qwen3:8b
      apiKey: ${MODEL_KEY}
      headers: {X-Team: "${TEAM}"}
      temperature: 0.2
  tools:
    - name: lookup
      description: Finds a word.
      parameters:
        type: object
        properties: {word: {type: string}}
        required: [word]
      exec: {command: [./lookup.sh]}
      approval: true
  mcpServers:
    - name: files
      command: ./mcp-files
      args: [--root, .]
      approval: [write_file]
    - name: web
      url: http://127.0.0.1:8931/mcp
      headers: {X-Key: "${TEAM}"}
      approval: true
  clientTools:
    - name: pick_color
      description: Asks the user for a color.
`

func TestModelConfigLoads(t *testing.T) {
	dir := writeFolder(t, modelConfig, minimalCard, minimalInstructions)
	f, err := LoadWithEnv(dir, envMap(map[string]string{"MODEL_KEY": "sk-secret", "TEAM": "blue"}))
	if err != nil {
		t.Fatal(err)
	}
	m := f.Config.Spec.Backend.Model
	if m == nil || m.BaseURL != "http://127.0.0.1:11434/v1" || m.Model != "qwen3:8b" || m.APIKey != "sk-secret" || m.Headers["X-Team"] != "blue" {
		t.Fatalf("model = %+v", m)
	}
	if m.Temperature == nil || *m.Temperature != 0.2 || m.MaxOutputTokens != nil {
		t.Errorf("options: temperature %v, maxOutputTokens %v", m.Temperature, m.MaxOutputTokens)
	}
	if m.TimeoutSeconds != DefaultModelTimeoutSeconds || m.MaxSteps != DefaultModelMaxSteps || m.HistoryMessages != DefaultModelHistoryMessages {
		t.Errorf("defaults: %+v", m)
	}
	tools := f.Config.Spec.Tools
	if len(tools) != 1 || !tools[0].Approval || tools[0].Exec.TimeoutSeconds != DefaultToolTimeoutSeconds {
		t.Fatalf("tools = %+v", tools)
	}
	var schema map[string]any
	if err := json.Unmarshal(tools[0].Parameters, &schema); err != nil || schema["type"] != "object" {
		t.Errorf("parameters = %s (%v)", tools[0].Parameters, err)
	}
	servers := f.Config.Spec.MCPServers
	if len(servers) != 2 || servers[0].Approval.All || !servers[0].Approval.Needs("write_file") || servers[0].Approval.Needs("read_file") {
		t.Errorf("approval of files = %+v", servers[0].Approval)
	}
	if !servers[1].Approval.All || !servers[1].Approval.Needs("anything") {
		t.Errorf("approval of web = %+v", servers[1].Approval)
	}
	if c := f.Config.Spec.ClientTools; len(c) != 1 || c[0].Name != "pick_color" || c[0].Parameters != nil {
		t.Errorf("clientTools = %+v", c)
	}
}

func TestModelConfigProblems(t *testing.T) {
	env := map[string]string{"MODEL_KEY": "sk-secret", "TEAM": "blue"}
	tests := []struct {
		name, from, to string
		want           []string
	}{
		{"no base URL", "      baseUrl: http://127.0.0.1:11434/v1\n", "", []string{"spec.backend.model.baseUrl: required"}},
		{"base URL not http", "http://127.0.0.1:11434/v1", "ftp://x/v1", []string{"spec.backend.model.baseUrl: must be an absolute http or https URL"}},
		{"base URL with credentials", "http://127.0.0.1:11434/v1", "http://u:p@127.0.0.1/v1", []string{"spec.backend.model.baseUrl: must not hold credentials"}},
		{"no model", "      model: qwen3:8b\n", "", []string{"spec.backend.model.model: required"}},
		{"temperature out of range", "temperature: 0.2", "temperature: 3", []string{"spec.backend.model.temperature: must be between 0 and 2"}},
		{"steps out of range", "temperature: 0.2", "maxSteps: 101", []string{"spec.backend.model.maxSteps: must be between 1 and 100"}},
		{"bad header name", "X-Team:", "X Team:", []string{`spec.backend.model.headers.X Team: not a valid HTTP header name`}},
		{"tool without exec", "      exec: {command: [./lookup.sh]}\n", "", []string{"spec.tools[0].exec: required"}},
		{"tool name with __", "name: lookup", "name: a__b", []string{`spec.tools[0].name: must be 1 to 64`}},
		{"duplicate tool names", "name: pick_color", "name: lookup", []string{`spec.clientTools[0].name: duplicate tool name "lookup" (also spec.tools[0].name)`}},
		{"schema not an object", "        type: object\n", "        type: string\n", []string{"spec.tools[0].parameters: must describe an object"}},
		{"schema invalid", "required: [word]", "required: 7", []string{"spec.tools[0].parameters: is not a valid JSON Schema"}},
		{"MCP server without command or url", "      command: ./mcp-files\n      args: [--root, .]\n", "", []string{"spec.mcpServers[0]: set command"}},
		{"MCP server with both", "      url: http://127.0.0.1:8931/mcp\n", "      url: http://127.0.0.1:8931/mcp\n      command: x\n", []string{"spec.mcpServers[1]: set either command or url, not both"}},
		{"MCP duplicate name", "name: web", "name: files", []string{`spec.mcpServers[1].name: duplicate MCP server name "files"`}},
		{"MCP approval of another type", "approval: [write_file]", "approval: {x: 1}", []string{"spec.mcpServers[0].approval: expected true, false or a list of tool names"}},
		{"tools without a model", "    model:\n", "    echo: {}\n    xmodel:\n", []string{"spec.backend.xmodel: unknown field"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !strings.Contains(modelConfig, tt.from) {
				t.Fatalf("the config has no %q", tt.from)
			}
			dir := writeFolder(t, strings.Replace(modelConfig, tt.from, tt.to, 1), minimalCard, minimalInstructions)
			probs := mustProblems(t, dir, env)
			if !hasLine(probs, tt.want...) {
				t.Errorf("no problem line contains all of %q; got:\n%v", tt.want, probs)
			}
			if strings.Contains(probs.Error(), "sk-secret") {
				t.Errorf("a problem shows the API key:\n%v", probs)
			}
		})
	}
}

func TestToolsNeedAModel(t *testing.T) {
	config := minimalConfig + "  tools:\n    - name: x\n      exec: {command: [x]}\n"
	probs := mustProblems(t, writeFolder(t, config, minimalCard, minimalInstructions), nil)
	if !hasLine(probs, "spec.tools: only the model backend calls tools") {
		t.Errorf("got:\n%v", probs)
	}
}

func TestInstructionsFile(t *testing.T) {
	dir := writeFolder(t, minimalConfig+"  instructions: prompts/system.md\n", minimalCard, minimalInstructions)
	if err := os.MkdirAll(filepath.Join(dir, "prompts"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "prompts", "system.md"), []byte("Be brief.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f := mustLoad(t, dir, nil)
	if f.Instructions != "Be brief.\n" {
		t.Errorf("instructions = %q", f.Instructions)
	}
	probs := mustProblems(t, writeFolder(t, minimalConfig+"  instructions: ../outside.md\n", minimalCard, minimalInstructions), nil)
	if !hasLine(probs, "spec.instructions: must name a file in the agent folder") {
		t.Errorf("got:\n%v", probs)
	}
}

func TestEnvDefaults(t *testing.T) {
	config := strings.Replace(modelConfig, "http://127.0.0.1:11434/v1", "${MODEL_URL:-http://127.0.0.1:8080/v1}", 1)
	config = strings.Replace(config, "apiKey: ${MODEL_KEY}", "apiKey: ${MODEL_KEY:-}", 1)
	dir := writeFolder(t, config, minimalCard, minimalInstructions)
	f, err := LoadWithEnv(dir, envMap(map[string]string{"TEAM": "blue"}))
	if err != nil {
		t.Fatal(err)
	}
	if m := f.Config.Spec.Backend.Model; m.BaseURL != "http://127.0.0.1:8080/v1" || m.APIKey != "" {
		t.Errorf("unset: baseUrl %q, apiKey %q", m.BaseURL, m.APIKey)
	}
	f, err = LoadWithEnv(dir, envMap(map[string]string{"TEAM": "blue", "MODEL_URL": "https://api.openai.com/v1", "MODEL_KEY": "sk-x"}))
	if err != nil {
		t.Fatal(err)
	}
	if m := f.Config.Spec.Backend.Model; m.BaseURL != "https://api.openai.com/v1" || m.APIKey != "sk-x" {
		t.Errorf("set: baseUrl %q, apiKey %q", m.BaseURL, m.APIKey)
	}
}
