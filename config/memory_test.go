package config

import (
	"strings"
	"testing"
)

const memoryConfig = modelConfig + `  memory:
    tools: true
    embeddings:
      url: http://127.0.0.1:9/v1
      model: embed-small
      apiKeyEnv: EMBED_KEY
`

func TestMemoryConfigLoads(t *testing.T) {
	dir := writeFolder(t, memoryConfig, minimalCard, minimalInstructions)
	f := mustLoad(t, dir, map[string]string{"MODEL_KEY": "sk-secret", "TEAM": "blue"})
	m := f.Config.Spec.Memory
	if !m.Tools || m.Embeddings == nil || m.Embeddings.URL != "http://127.0.0.1:9/v1" || m.Embeddings.Model != "embed-small" || m.Embeddings.APIKeyEnv != "EMBED_KEY" {
		t.Fatalf("spec.memory = %+v (%+v)", m, m.Embeddings)
	}
}

func TestMemoryConfigProblems(t *testing.T) {
	env := map[string]string{"MODEL_KEY": "sk-secret", "TEAM": "blue"}
	tests := []struct {
		name, from, to string
		want           []string
	}{
		{"no url", "      url: http://127.0.0.1:9/v1\n", "", []string{"spec.memory.embeddings.url: required"}},
		{"url not http", "url: http://127.0.0.1:9/v1", "url: ftp://x/v1", []string{"spec.memory.embeddings.url: must be an absolute http or https URL"}},
		{"url with query", "url: http://127.0.0.1:9/v1", "url: http://127.0.0.1:9/v1?x=1", []string{"spec.memory.embeddings.url: must not have a query"}},
		{"no model", "      model: embed-small\n", "", []string{"spec.memory.embeddings.model: required"}},
		{"bad env name", "apiKeyEnv: EMBED_KEY", "apiKeyEnv: 1-X", []string{"spec.memory.embeddings.apiKeyEnv: must be an environment variable's name"}},
		{"tool named like a memory tool", "name: lookup", "name: memory_save", []string{"spec.tools[0].name: memory_save is the name of a memory tool"}},
		{"unknown key", "    tools: true\n", "    tools: true\n    tool: true\n", []string{"spec.memory.tool: unknown field"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !strings.Contains(memoryConfig, tt.from) {
				t.Fatalf("the config has no %q", tt.from)
			}
			dir := writeFolder(t, strings.Replace(memoryConfig, tt.from, tt.to, 1), minimalCard, minimalInstructions)
			probs := mustProblems(t, dir, env)
			if !hasLine(probs, tt.want...) {
				t.Errorf("no problem line contains all of %q; got:\n%v", tt.want, probs)
			}
		})
	}
}
