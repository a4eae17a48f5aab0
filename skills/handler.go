package skills

import "net/http"

// Options configure the skills routes.
type Options struct {
	Card          map[string]any // agent-card.yaml as loaded
	PublicBaseURL string         // where clients reach the server, when behind a proxy
	MCP           bool           // /mcp is served
}

// Register mounts GET /skills and GET /skills/{id}/SKILL.md on mux.
func Register(mux *http.ServeMux, o Options) {}

// IsPublic reports the skills routes: they need no credentials, like the
// agent card they come from.
func IsPublic(r *http.Request) bool { return false }
