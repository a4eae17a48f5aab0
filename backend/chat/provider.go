package chat

import (
	"net/url"
	"strings"
)

// knownProviders maps a provider's domain to its short name.
var knownProviders = []struct{ domain, name string }{
	{"openai.azure.com", "azure"},
	{"openai.com", "openai"},
	{"openrouter.ai", "openrouter"},
	{"deepseek.com", "deepseek"},
	{"groq.com", "groq"},
	{"mistral.ai", "mistral"},
	{"together.xyz", "together"},
	{"fireworks.ai", "fireworks"},
	{"x.ai", "xai"},
}

// ollamaPort is Ollama's default port.
const ollamaPort = "11434"

// providerName is a short name for the endpoint behind u: a known
// provider's name when the host is (under) its domain, ollama on Ollama's
// default port, else the host name itself.
func providerName(u *url.URL) string {
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	for _, p := range knownProviders {
		if host == p.domain || strings.HasSuffix(host, "."+p.domain) {
			return p.name
		}
	}
	if u.Port() == ollamaPort {
		return "ollama"
	}
	return host
}
