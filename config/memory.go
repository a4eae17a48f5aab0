package config

import (
	"fmt"
	"strings"
)

// Memory is the agent's long-term memory (spec.memory): items kept per
// user that outlive sessions, served at /memory and, with Tools, offered
// to the model backend as the memory_save and memory_search tools.
type Memory struct {
	// Tools offers the model backend memory_save and memory_search, which
	// run in the caller's memory (default false).
	Tools bool `yaml:"tools"`
	// Embeddings, when set, makes search semantic: items are embedded as
	// they are saved and searches rank by cosine similarity. Without it
	// search is by keyword, with no extra service.
	Embeddings *Embeddings `yaml:"embeddings"`
}

// Embeddings is an OpenAI-compatible embeddings endpoint (POST
// {url}/embeddings).
type Embeddings struct {
	// URL is the endpoint's base URL, such as https://api.openai.com/v1.
	URL string `yaml:"url"`
	// Model names the embedding model, such as text-embedding-3-small.
	Model string `yaml:"model"`
	// APIKeyEnv names the environment variable that holds the key, sent
	// as Authorization: Bearer ("": no key).
	APIKeyEnv string `yaml:"apiKeyEnv"`
}

// memory checks spec.memory: with tools, no tool of spec.tools or
// spec.clientTools may take a memory tool's name.
func (v *validator) memory(s Spec) {
	if s.Memory.Tools {
		for i, t := range s.Tools {
			if t.Name == "memory_save" || t.Name == "memory_search" {
				v.problem(fmt.Sprintf("spec.tools[%d].name", i), "%s is the name of a memory tool (spec.memory.tools is on); rename this tool", t.Name)
			}
		}
		for i, t := range s.ClientTools {
			if t.Name == "memory_save" || t.Name == "memory_search" {
				v.problem(fmt.Sprintf("spec.clientTools[%d].name", i), "%s is the name of a memory tool (spec.memory.tools is on); rename this tool", t.Name)
			}
		}
	}
	e := s.Memory.Embeddings
	if e == nil {
		return
	}
	const at = "spec.memory.embeddings"
	v.endpoint(endpointURL{key: at + ".url", value: e.URL, required: "the endpoint's base URL, such as https://api.openai.com/v1",
		example: "https://api.openai.com/v1", credential: "name the key's variable in apiKeyEnv", appends: "/embeddings"})
	if strings.TrimSpace(e.Model) == "" {
		v.problem(at+".model", "required; name the embedding model, such as text-embedding-3-small")
	}
	if e.APIKeyEnv != "" && !envNamePattern.MatchString(e.APIKeyEnv) {
		v.problem(at+".apiKeyEnv", "must be an environment variable's name, such as OPENAI_API_KEY")
	}
}
